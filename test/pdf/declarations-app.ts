/**
 * The render route on a pool of its own, for the tests of what documents declare (PDF profiles,
 * Factur-X, attachments): every render's record is kept, and a loopback server answers attachments.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildRenderApp } from '../../src/app/render-app.js';
import type { RenderRecord } from '../../src/report/report.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';

/** A render service with its key, the records of its renders, and a way to stop it all. */
export interface DeclarationsApp {
  app: FastifyInstance;
  key: string;
  records: RenderRecord[];
  /** The record of the render that answered with this X-Render-ID. */
  recordOf(id: unknown): RenderRecord;
  close(): Promise<void>;
}

/**
 * Starts the render service; `allowLoopback` is EGRESS_ALLOW=127.0.0.1/32 (else loopback is refused like any private
 * address); `env` sets more of its configuration (RENDER_TIMEOUT_MS).
 */
export async function startDeclarationsApp(opts: {
  allowLoopback: boolean;
  env?: Record<string, string>;
}): Promise<DeclarationsApp> {
  const core = await createTestCore({
    RENDER_CONCURRENCY: '1',
    ...(opts.allowLoopback ? { EGRESS_ALLOW: '127.0.0.1/32' } : {}),
    ...opts.env,
  });
  const records: RenderRecord[] = [];
  const app = await buildRenderApp(core, { lookup: noDns, startJobWorker: false, recorder: { record: (r) => records.push(r) } });
  const { key } = await createKey(core, 'render');
  return {
    app,
    key,
    records,
    recordOf(id) {
      const found = records.find((r) => r.id === id);
      if (!found) throw new Error(`no record for ${String(id)}`);
      return found;
    },
    async close() {
      await app.close();
      await closeTestCore(core);
    },
  };
}

/** A loopback server answering `files` by path (anything else 404), counting the requests it got. */
export async function startFileServer(files: Record<string, { type: string; body: Buffer | string }>) {
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests += 1;
    const file = files[req.url ?? ''];
    if (!file) {
      res.statusCode = 404;
      res.end('not here');
      return;
    }
    res.setHeader('content-type', file.type);
    res.end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get requests() {
      return requests;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
