/**
 * The docs cannot rot: every fenced `sh` block of docs/*.md runs with the real curl against a render
 * and a metadata service started on free ports (real store, real Chromium, a loopback page let through
 * with EGRESS_ALLOW), and each answer must have the status written after `# →` in the block, and the
 * exact JSON body when the block writes one out in full (no `…`). A block with several curls has one
 * `# →` per curl, in order; one that says "each poll" stands for one or more answers with that status.
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildMetadataApp } from '../../src/app/metadata-app.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { assembleCurl, renderCurl } from '../../src/dashboard/views/examples.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { type Origin, startOrigin } from '../metadata/origin.js';

// docs/deploy.md's blocks drive docker compose on a host; only the API reference and assembling's examples run here.
const DOCS = [path.resolve('docs/api.md'), path.resolve('docs/assembling.md')];
const STATUS_MARK = 'HTTP_STATUS:';

interface Example {
  file: string;
  line: number;
  script: string;
  /** Expected answers in order: status, the body when written out in full, and whether it repeats (polling). */
  expected: Array<{ status: number; body?: unknown; repeats: boolean }>;
}

/** Whether the statuses curl reported are the expected ones, a repeating entry standing for one or more. */
function statusesMatch(got: number[], expected: Example['expected']): boolean {
  // As a regular expression over "202,200,200,": a repeating entry may take any run, the rest must still match.
  const pattern = expected.map((e) => (e.repeats ? `(?:${e.status},)+` : `${e.status},`)).join('');
  return new RegExp(`^${pattern}$`).test(got.map((status) => `${status},`).join(''));
}

/** The fenced `sh` blocks of a Markdown file with their `# → <status> [body]` annotations. */
function examples(file: string): Example[] {
  const text = fs.readFileSync(file, 'utf8');
  const found: Example[] = [];
  for (const match of text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)) {
    const script = match[1];
    const expected = [...script.matchAll(/^# → (\d{3})\b(.*)$/gm)].map(([, status, rest]) => {
      const text = rest.trim();
      const body = text.startsWith('{') && !text.includes('…') ? JSON.parse(text) : undefined;
      return { status: Number(status), body, repeats: text.includes('each poll') };
    });
    const line = text.slice(0, match.index).split('\n').length;
    found.push({ file: path.relative(process.cwd(), file), line, script, expected });
  }
  return found;
}

const all = DOCS.flatMap(examples);

let core: CoreDeps;
let render: FastifyInstance;
let metadata: FastifyInstance;
let origin: Origin;
let env: Record<string, string>;
let work: string;

const PAGE = `<!doctype html><title>Example Domain</title><meta property="og:title" content="Example">`;

beforeAll(async () => {
  origin = await startOrigin((_req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(PAGE);
  });
  // CERTIFICATE_KEY: the signed invoice's example uploads a certificate.
  core = await createTestCore({
    EGRESS_ALLOW: '127.0.0.1/32',
    RENDER_CONCURRENCY: '1',
    CERTIFICATE_KEY: crypto.randomBytes(32).toString('hex'),
  });
  render = await buildRenderApp(core);
  metadata = await buildMetadataApp(core);
  await render.listen({ host: '127.0.0.1', port: 0 });
  await metadata.listen({ host: '127.0.0.1', port: 0 });
  const port = (app: FastifyInstance) => (app.server.address() as AddressInfo).port;

  // `curl` on PATH is the real curl, told to print the status on stderr after each answer, so that
  // examples piping the body into grep or head still report it.
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'pageworks-docs-'));
  const bin = path.join(work, 'bin');
  fs.mkdirSync(bin);
  const realCurl = (await promisify(execFile)('sh', ['-c', 'command -v curl'])).stdout.trim();
  fs.writeFileSync(path.join(bin, 'curl'), `#!/bin/sh\nexec ${realCurl} "$@" -w '%{stderr}${STATUS_MARK}%{http_code}\\n'\n`, {
    mode: 0o755,
  });
  env = {
    PATH: `${bin}:${process.env.PATH}`,
    PAGEWORKS_RENDER_URL: `http://127.0.0.1:${port(render)}`,
    PAGEWORKS_METADATA_URL: `http://127.0.0.1:${port(metadata)}`,
    PAGEWORKS_RENDER_KEY: (await createKey(core, 'render')).key,
    PAGEWORKS_METADATA_KEY: (await createKey(core, 'metadata')).key,
    PAGE: `${origin.base}/`,
    // The loopback page answers 200 to any request, so it doubles as the examples' webhook receiver.
    WEBHOOK_URL: `${origin.base}/hooks/pageworks`,
  };
});

afterAll(async () => {
  await render?.close();
  await metadata?.close();
  if (core) await closeTestCore(core);
  await origin?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe('docs examples', () => {
  it('finds the examples', () => {
    expect(all.length).toBeGreaterThanOrEqual(10);
    for (const example of all)
      expect(example.expected.length, `${example.file}:${example.line} has no "# →" status`).toBeGreaterThanOrEqual(1);
  });

  it.each(all.map((e) => [`${e.file}:${e.line}`, e] as const))('%s answers as written', async (_name, example) => {
    const cwd = fs.mkdtempSync(path.join(work, 'run-'));
    // Asynchronous: the services run in this process and must keep serving while curl waits.
    const { stdout, stderr } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', example.script], {
      cwd,
      env,
      timeout: 60_000,
    });
    const statuses = [...stderr.matchAll(new RegExp(`${STATUS_MARK}(\\d{3})`, 'g'))].map((m) => Number(m[1]));
    expect(statusesMatch(statuses, example.expected), `statuses ${statuses.join(',')}`).toBe(true);
    // A body is compared only where the block has a single answer (stdout is then that answer).
    const body = example.expected.length === 1 ? example.expected[0]?.body : undefined;
    if (body !== undefined) expect(JSON.parse(stdout)).toEqual(body);
    // Every block shows at least some of the answer: a body, headers, or the file it wrote.
    expect(stdout.length + fs.readdirSync(cwd).length).toBeGreaterThan(0);
    // Files the examples write (-o invoice.pdf) must be what they say.
    for (const file of fs.readdirSync(cwd).filter((f) => f.endsWith('.pdf'))) {
      expect(fs.readFileSync(path.join(cwd, file)).subarray(0, 5).toString(), file).toBe('%PDF-');
    }
    if (/-o (\S+\.pdf)/.test(example.script)) {
      const name = /-o (\S+\.pdf)/.exec(example.script)?.[1] ?? '';
      expect(fs.existsSync(path.join(cwd, name)), `${name} written`).toBe(true);
    }
  });
});

describe("the dashboard's Get started examples", () => {
  it('render, then assemble the rendered PDF as the uploaded terms: the answers are the PDFs they say', async () => {
    const cwd = fs.mkdtempSync(path.join(work, 'dashboard-'));
    const script = `${renderCurl(env.PAGEWORKS_RENDER_URL)}\nmv hello.pdf terms.pdf\n${assembleCurl(env.PAGEWORKS_RENDER_URL)}`;
    const { stderr } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], { cwd, env, timeout: 60_000 });
    expect([...stderr.matchAll(new RegExp(`${STATUS_MARK}(\\d{3})`, 'g'))].map((m) => Number(m[1]))).toEqual([200, 200]);
    const info = (await promisify(execFile)('pdfinfo', [path.join(cwd, 'invoice-with-terms.pdf')])).stdout;
    expect(/^Pages:\s+(\d+)/m.exec(info)?.[1]).toBe('2');
    const text = (await promisify(execFile)('pdftotext', [path.join(cwd, 'invoice-with-terms.pdf'), '-'])).stdout;
    expect(text).toMatch(/Invoice 42[\s\S]*Hello from Pageworks/);
  });
});
