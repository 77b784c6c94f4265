/**
 * The same document in the same environment tells the same story from `pageworks render` and from
 * POST /v1/render: an invoice with a logo, a web font whose file is missing and a table, served from
 * 127.0.0.1 with EGRESS_ALLOW=127.0.0.1/32, gives the same report entries, the font fallback included;
 * without EGRESS_ALLOW both refuse the loopback address in words that say "loopback" and name EGRESS_ALLOW.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { type LogoServer, startLogoServer } from '../helpers/logo-server.js';
import { PAGEWORKS } from '../helpers/pageworks-command.js';
import { postRender } from '../helpers/render.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
let files: LogoServer;
let base: string;
let work: string;

beforeAll(async () => {
  files = await startLogoServer();
  base = files.base;
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-parity-'));
});

afterAll(async () => {
  await files?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

function invoice(): string {
  return `<!doctype html><html><head><style>
@font-face { font-family: "Brand Serif"; src: url("${base}/fonts/brand-serif.woff2") format("woff2"); }
body { font-family: "Brand Serif", serif; }
</style></head><body><img src="${base}/logo.svg" alt="Acme"><h1>Invoice 42</h1>
<table><tr><th>Item</th><th>Amount</th></tr><tr><td>Consulting</td><td>1,200.00</td></tr></table></body></html>`;
}

/** `pageworks render` (pageworks-command.ts says which build), without blocking this process (its file server must answer). */
function cliRender(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const input = path.join(work, 'invoice.html');
  fs.writeFileSync(input, invoice());
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PAGEWORKS_DATA_DIR: work, LOG_LEVEL: 'warn', ...env };
  delete childEnv.EGRESS_ALLOW;
  Object.assign(childEnv, env);
  const child = spawn(process.execPath, [...PAGEWORKS, 'render', input, '-o', path.join(work, 'out.pdf')], {
    cwd: ROOT,
    env: childEnv,
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  // 'close', not 'exit': a process's last output can still be in its pipes when it has exited.
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

/** The warnings of a CLI run, as the API's entries' messages read. */
function cliWarnings(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('pageworks render: warning: '))
    .map((l) => l.slice('pageworks render: warning: '.length));
}

async function apiWarnings(env: Record<string, string>): Promise<{ header: string; messages: string[] }> {
  const core: CoreDeps = await createTestCore(env);
  let app: FastifyInstance | undefined;
  try {
    app = await buildRenderApp(core);
    const { key } = await createKey(core, 'render');
    const res = await postRender(app, key, { html: invoice() });
    expect(res.statusCode).toBe(200);
    const id = res.headers['x-render-id'] as string;
    const report = await app.inject({ method: 'GET', url: `/v1/renders/${id}`, headers: { authorization: `Bearer ${key}` } });
    const warnings = (report.json() as { warnings: Array<{ message: string }> }).warnings;
    return { header: String(res.headers['x-render-warnings']), messages: warnings.map((w) => w.message) };
  } finally {
    await app?.close();
    await closeTestCore(core);
  }
}

describe('pageworks render and POST /v1/render agree', () => {
  it('with EGRESS_ALLOW=127.0.0.1/32: the same entries, the font fallback included', async () => {
    const env = { EGRESS_ALLOW: '127.0.0.1/32' };
    const cli = await cliRender(env);
    const api = await apiWarnings(env);
    expect(cli.code).toBe(0);
    expect(cliWarnings(cli.stderr)).toEqual(api.messages);
    expect(api.messages).toEqual([
      `The font "Brand Serif" could not be loaded from brand-serif.woff2 (its server answered HTTP 404); its text printed in a fallback font`,
    ]);
    expect(api.header).toBe('1');
  }, 180_000);

  it('without EGRESS_ALLOW: both refuse 127.0.0.1 as loopback and name EGRESS_ALLOW', async () => {
    const cli = await cliRender({});
    const api = await apiWarnings({});
    expect(cli.code).toBe(0);
    const why =
      'its address 127.0.0.1 is loopback, the machine that renders the document; EGRESS_ALLOW=127.0.0.1/32 lets an operator allow it';
    const logo = `logo.svg was not loaded: ${why}`;
    const font = `brand-serif.woff2 was not loaded: ${why}`;
    const fallback = `The font "Brand Serif" could not be loaded from brand-serif.woff2 (${why}); its text printed in a fallback font`;
    // Entries come in the order met, and Chromium may ask for the font before the image or after it:
    // both runs give the same three, and each gives the font's refusal before the fallback it caused.
    for (const messages of [cliWarnings(cli.stderr), api.messages]) {
      expect([...messages].sort()).toEqual([font, logo, fallback].sort());
      expect(messages.indexOf(font)).toBeLessThan(messages.indexOf(fallback));
    }
    expect(api.header).toBe('3');
  }, 180_000);
});
