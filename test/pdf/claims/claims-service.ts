/**
 * The render service the claims runner drives: the real render app (in process, real Chromium, the default
 * render concurrency) on a temp core, with the rate limit raised so that a run measures rendering.
 */
import os from 'node:os';
import { buildRenderApp } from '../../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../../helpers/core.js';
import { noDns } from '../../helpers/render.js';
import type { RenderAnswer } from './claims-runner.js';

/** What POST /v1/assemble answered: status, body (a PDF or a zip on a 200), and the claims its header names. */
export interface AssembleAnswer {
  status: number;
  body: Buffer;
  claims: string[];
}

/** A running service: its render and assemble calls, its render concurrency, and how to stop it. */
export interface ClaimsService {
  render(html: string): Promise<RenderAnswer>;
  assemble(body: unknown): Promise<AssembleAnswer>;
  concurrency: number;
  close(): Promise<void>;
}

/** Starts the render app; RENDER_CONCURRENCY is the service's default (one per core) unless `env` says otherwise. */
export async function startClaimsService(env: Record<string, string> = {}): Promise<ClaimsService> {
  // createTestCore pins RENDER_CONCURRENCY to 2; the service's own default is one render per core.
  const core = await createTestCore({
    RENDER_CONCURRENCY: String(os.availableParallelism()),
    RENDER_RATE_LIMIT: '1000000',
    // The suite's PDF workers leave loading the invoice schema to their first Factur-X check (seconds on a
    // busy machine); the built worker does that before it is ready. What this run judges is the claim, not
    // the machine's load, so its PDF work gets 30 s, as no built service needs.
    PDF_WORK_TIMEOUT_MS: '30000',
    ...env,
  });
  const app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false });
  const { key } = await createKey(core, 'render');
  return {
    concurrency: core.config.renderConcurrency,
    async render(html) {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/render',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        // No format: the page is A4 unless the document's @page says otherwise, as a page past PDF/A's limits does.
        payload: JSON.stringify({ html, options: { printBackground: true } }),
      });
      return { status: res.statusCode, body: res.rawPayload, warnings: String(res.headers['x-render-warnings'] ?? '') };
    },
    async assemble(body) {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/assemble',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
      const header = String(res.headers['x-render-claims'] ?? '');
      return { status: res.statusCode, body: res.rawPayload, claims: header ? header.split(', ') : [] };
    },
    async close() {
      await app.close();
      await closeTestCore(core);
    },
  };
}
