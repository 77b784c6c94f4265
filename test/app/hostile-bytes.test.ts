/**
 * A real `pageworks serve` (dashboard, render and metadata in one process, as by default) sent files
 * written to exhaust their reader — a PKCS#12 whose MAC asks for 2^31 − 1 iterations, PDF parts whose
 * xref claims 10^9 entries, whose page tree contains itself, whose XMP backtracks a pattern or inflates to
 * 400 MiB: each is answered within 5 s (4xx naming the part and the limit; the XMP that is not XML is read
 * in linear time and carried over as nothing, so that readable file is a 200), while every service's
 * /v1/health answers within 1 s and another account's one-line render within 3 s. SIGTERM while such a
 * PKCS#12 is being read ends the process within its drain time, its Chromium with it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  backtrackingXmpPdf,
  classicPdf,
  hugeXrefPdf,
  inflatingXmpPdf,
  pkcs12WithMacIterations,
  selfContainingPageTree,
} from '../helpers/hostile-inputs.js';
import { PAGEWORKS } from '../helpers/pageworks-command.js';
import { alive, descendants, instanceEnv, runCli } from '../scale/instances.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SERVICES = ['dashboard', 'render', 'metadata'] as const;
type Service = (typeof SERVICES)[number];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One `pageworks serve` of the three services, and the keys of two accounts on it. */
interface Server {
  child: ChildProcess;
  output: string;
  urls: Record<Service, string>;
  exited: Promise<number | null>;
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-hostile-'));
const ENV = {
  PAGEWORKS_DATA_DIR: dataDir,
  RENDER_PORT: '0',
  METADATA_PORT: '0',
  DASHBOARD_PORT: '0',
  LOG_LEVEL: 'warn',
  RENDER_RATE_LIMIT: '1000',
  RENDER_CONCURRENCY: '2',
  RENDER_TIMEOUT_MS: '10000',
  SECRETS_KEY: crypto.randomBytes(32).toString('hex'),
  PDF_WORK_TIMEOUT_MS: '3000',
};

async function keyOf(email: string): Promise<string> {
  const made = await runCli(['accounts', 'create', '--email', email, '--password', 'correct horse battery 7'], ENV);
  if (made.code !== 0) throw new Error(made.stderr);
  const key = await runCli(['keys', 'create', '--email', email, '--service', 'render', '--name', 'test'], ENV);
  if (key.code !== 0) throw new Error(key.stderr);
  return key.stdout.trim();
}

async function startServer(): Promise<Server> {
  const child = spawn(process.execPath, [...PAGEWORKS, 'serve'], { cwd: ROOT, env: instanceEnv(ENV) });
  const server = { child, output: '', urls: {} as Record<Service, string> } as Server;
  child.stdout?.on('data', (d) => (server.output += d));
  child.stderr?.on('data', (d) => (server.output += d));
  server.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const until = Date.now() + 90_000;
  for (;;) {
    const found = SERVICES.map((s) => new RegExp(`${s}\\s+listening on (http://\\S+)`).exec(server.output)?.[1]);
    if (found.every(Boolean)) {
      for (const [i, s] of SERVICES.entries()) server.urls[s] = found[i] as string;
      return server;
    }
    if (child.exitCode !== null || Date.now() > until) throw new Error(`server did not start:\n${server.output}`);
    await sleep(100);
  }
}

let server: Server;
let hostileKey: string;
let otherKey: string;

beforeAll(async () => {
  hostileKey = await keyOf('sender@example.com');
  otherKey = await keyOf('bystander@example.com');
  server = await startServer();
  // Chromium's first render starts its renderer: the bystander's timed render is not the first.
  expect((await post('render', '/v1/render', otherKey, { html: '<p>Warm.</p>' })).status).toBe(200);
}, 180_000);

afterAll(() => {
  if (server?.child.exitCode === null) server.child.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const post = (service: Service, url: string, key: string, body: unknown) =>
  fetch(`${server.urls[service]}${url}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  });

/** How long each service's /v1/health and another account's one-line render took while `request` was answered. */
async function meanwhile(request: () => Promise<Response>) {
  const started = Date.now();
  let done = false;
  const answered = request().then(async (res) => {
    const ms = Date.now() - started;
    done = true;
    // A PDF (200) has no error body; a refusal's JSON names the part.
    const json = res.headers.get('content-type')?.startsWith('application/json') ? await res.json() : { error: undefined };
    await res.body?.cancel().catch(() => undefined);
    return { status: res.status, body: (json as { error: { code: string; message: string } }).error, ms };
  });
  const health: Record<Service, number> = { dashboard: 0, render: 0, metadata: 0 };
  const probes = (async () => {
    while (!done) {
      await Promise.all(
        SERVICES.map(async (s) => {
          const at = Date.now();
          const res = await fetch(`${server.urls[s]}/v1/health`, { signal: AbortSignal.timeout(60_000) });
          expect(res.status).toBe(200);
          health[s] = Math.max(health[s], Date.now() - at);
        }),
      );
      await sleep(150);
    }
  })();
  const render = (async () => {
    await sleep(500);
    const at = Date.now();
    const res = await post('render', '/v1/render', otherKey, { html: '<p>One line from another account.</p>' });
    expect(res.status).toBe(200);
    return Date.now() - at;
  })();
  const [result, renderMs] = await Promise.all([answered, render, probes]);
  return { ...result, health, renderMs };
}

const base64 = (b: Buffer) => b.toString('base64');
/** A plain one-page PDF, the part before the hostile one. */
const goodPart = classicPdf([
  '<< /Type /Catalog /Pages 2 0 R >>',
  '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
  '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>',
]);

describe('untrusted bytes are worked on off the event loop', () => {
  it('a PKCS#12 whose MAC asks for 2^31 − 1 iterations: 400 naming the limit within 5 s; the services stay responsive', async () => {
    const p12 = pkcs12WithMacIterations('secret', 2 ** 31 - 1);
    const seen = await meanwhile(() =>
      post('render', '/v1/certificates', hostileKey, { pkcs12: base64(p12), password: 'secret' }),
    );
    expect(seen.status).toBe(400);
    expect(seen.body.code).toBe('INVALID_REQUEST');
    // Ended by the work's deadline, or (where the reader bounds the count first) refused before any work.
    expect(seen.body.message).toMatch(
      /^pkcs12: (reading the PKCS#12 file took longer than 3 s \(PDF_WORK_TIMEOUT_MS\)|its MAC asks for [\d,]+ iterations, .*)$/,
    );
    expect(seen.ms).toBeLessThan(5000);
    for (const s of SERVICES) expect(seen.health[s], `${s} /v1/health`).toBeLessThan(1000);
    expect(seen.renderMs).toBeLessThan(3000);
  }, 120_000);

  // The linear readers refuse these at once as damaged, or read them within their caps; the engine's limits
  // (PDF_WORK_TIMEOUT_MS, PDF_WORK_MAX_MB) stand behind them. Either way: an answer within 5 s.
  const cases: Array<{ what: string; make: () => Buffer | Promise<Buffer>; at: 0 | 1; message: RegExp | null }> = [
    { what: 'an xref that claims 10^9 entries', make: hugeXrefPdf, at: 1, message: /^parts\[1\]: the PDF is damaged/ },
    { what: 'a page tree that contains itself', make: selfContainingPageTree, at: 1, message: /^parts\[1\]: the PDF is damaged/ },
    // The first part's XMP is the one the assembly edits; parsed as XML, it is read in linear time: a PDF.
    { what: 'an XMP that backtracks a pattern', make: backtrackingXmpPdf, at: 0, message: null },
    {
      what: 'an XMP that inflates to 400 MiB',
      make: inflatingXmpPdf,
      at: 1,
      message: /^parts\[1\]: its XMP metadata cannot be read: stream \d+ inflates to more than 4194304 bytes/,
    },
  ];
  for (const { what, make, at, message } of cases) {
    const answer = message === null ? '200, a PDF,' : '422 naming the part and the limit';
    it(`a PDF part with ${what}: ${answer} within 5 s; the services stay responsive`, async () => {
      const hostile = { pdf: base64(await make()) };
      const body = { parts: at === 0 ? [hostile, { pdf: base64(goodPart) }] : [{ pdf: base64(goodPart) }, hostile] };
      const seen = await meanwhile(() => post('render', '/v1/assemble', hostileKey, body));
      if (message === null) expect(seen.status).toBe(200);
      else {
        expect(seen.status).toBe(422);
        expect(seen.body.code).toBe('PART_FAILED');
        expect(seen.body.message).toMatch(message);
      }
      expect(seen.ms).toBeLessThan(5000);
      for (const s of SERVICES) expect(seen.health[s], `${s} /v1/health`).toBeLessThan(1000);
      expect(seen.renderMs).toBeLessThan(3000);
    }, 120_000);
  }

  it('SIGTERM while a hostile PKCS#12 and a hostile part are read: the process exits within its drain time, its Chromium with it', async () => {
    const p12 = pkcs12WithMacIterations('secret', 2 ** 31 - 1);
    const upload = Promise.all([
      post('render', '/v1/certificates', hostileKey, { pkcs12: base64(p12), password: 'secret' }),
      post('render', '/v1/assemble', hostileKey, { parts: [{ pdf: base64(goodPart) }, { pdf: base64(hugeXrefPdf()) }] }),
    ]).catch(() => undefined);
    await sleep(700);
    const below = descendants(server.child.pid as number);
    expect(below.length).toBeGreaterThan(0);
    const signaled = Date.now();
    server.child.kill('SIGTERM');
    const code = await Promise.race([server.exited, sleep(60_000).then(() => 'still running')]);
    const exitMs = Date.now() - signaled;
    await upload;
    expect(code).toBe(0);
    // The drain time of a render process: RENDER_TIMEOUT_MS, a second to answer, and the 4 s reserve.
    expect(exitMs).toBeLessThan(10_000 + 1000 + 4000);
    expect(below.filter(alive), 'processes the server started that outlived it').toEqual([]);
  }, 120_000);
});
