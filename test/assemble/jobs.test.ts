/**
 * Assembly jobs: POST /v1/jobs with `parts`. A job of 1,000 parts (996 distinct one-page PDFs and 4 HTML
 * documents) succeeds with every page in order; and a job whose process is SIGKILLed while it assembles
 * is taken again once its lease lapses by the restarted process, and succeeds.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { PAGEWORKS } from '../helpers/pageworks-command.js';
import { noDns } from '../helpers/render.js';
import { outline, page, pageCount, pageTexts, qpdfCheck, tinyPdf } from './helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** 1,000 parts: HTML at 0, 333, 666 and 999, the rest one-page PDFs saying "Payslip N". */
function thousandParts(): Array<{ html: string } | { pdf: string }> {
  return Array.from({ length: 1000 }, (_, i) =>
    i % 333 === 0 ? { html: page(`Summary ${i}`) } : { pdf: tinyPdf(`Payslip ${i}`).toString('base64') },
  );
}

describe('an assembly job of 1,000 parts', () => {
  let core: CoreDeps;
  let app: FastifyInstance;
  let key: string;

  beforeAll(async () => {
    // Each part counts against the render limit: 1,000 parts fit one window of a limit of 1,000 (at the
    // default 120 a minute, the parts beyond the first 120 would wait for the next windows, as they should).
    core = await createTestCore({ RENDER_CONCURRENCY: '2', RENDER_RATE_LIMIT: '1000' });
    app = await buildRenderApp(core, { lookup: noDns, jobPollMs: 50 });
    key = (await createKey(core, 'render')).key;
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    if (core) await closeTestCore(core);
  });

  it('succeeds: 1,000 pages in order, an outline entry per part, the record counts the parts', async () => {
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const submit = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers,
      payload: JSON.stringify({ parts: thousandParts(), reference: 'payslips-2026-03' }),
    });
    expect(submit.statusCode, submit.body).toBe(202);
    const id = submit.json().id as string;
    let job: Record<string, unknown> = {};
    const until = Date.now() + 240_000;
    while (Date.now() < until) {
      job = (await app.inject({ method: 'GET', url: `/v1/jobs/${id}`, headers })).json();
      if (job.status === 'succeeded' || job.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(job.status, JSON.stringify(job.error)).toBe('succeeded');
    expect((job.pdf as { pages: number }).pages).toBe(1000);
    const download = await app.inject({ method: 'GET', url: `/v1/jobs/${id}/pdf`, headers });
    expect(download.statusCode).toBe(200);
    const pdf = download.rawPayload;
    expect(qpdfCheck(pdf).status).toBe(0);
    expect(pageCount(pdf)).toBe(1000);
    const texts = pageTexts(pdf);
    expect(texts).toHaveLength(1000);
    for (const i of [0, 1, 2, 332, 333, 334, 665, 666, 998, 999]) {
      expect(texts[i]).toContain(i % 333 === 0 ? `Summary ${i}` : `Payslip ${i}`);
    }
    const entries = outline(pdf);
    expect(entries).toHaveLength(1000);
    expect([entries[0].title, entries[1].title, entries[999].title]).toEqual(['Summary 0', 'Payslip 1', 'Summary 999']);
    const record = (await app.inject({ method: 'GET', url: `/v1/renders/${id}`, headers })).json();
    expect(record.part_count).toBe(1000);
    expect(record.parts[0]).toEqual({ label: 'parts[0]', kind: 'html', pages: 1, warnings: 0 });
    expect(record.parts[1]).toEqual({ label: 'parts[1]', kind: 'pdf', pages: 1, warnings: 0 });
  }, 300_000);

  it('refuses more than 5,000 parts, and a sync-sized limit does not apply to jobs', async () => {
    // Another account: the 1,000 parts above took this window of the first one's render limit.
    const fresh = (await createKey(core, 'render')).key;
    const headers = { authorization: `Bearer ${fresh}`, 'content-type': 'application/json' };
    const tiny = tinyPdf('x').toString('base64');
    const res = await app.inject({
      method: 'POST',
      url: '/v1/jobs',
      headers,
      payload: JSON.stringify({ parts: Array.from({ length: 5001 }, () => ({ pdf: tiny })) }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe("parts: 5001 parts is more than the limit of 5000 (a job's limit)");
  }, 30_000);
});

describe('an assembly job whose process is killed mid-way', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-assemble-kill-'));
  // The services' own temp folder, so what the killed one leaves there can be seen.
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-assemble-kill-tmp-'));
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(tmpDir, { recursive: true, force: true });
  });
  /** The kinds of temporary directory process `pid` left (`pageworks-<kind>-<pid>-XXXXXX`). */
  const dirsOf = (pid: number | undefined) =>
    fs.readdirSync(tmpDir).flatMap((name) => new RegExp(`^pageworks-(.+)-${pid}-\\w{6}$`).exec(name)?.[1] ?? []);

  async function start(leaseMs = 3000): Promise<{ child: ChildProcess; url: string; output: () => string }> {
    const child = spawn(process.execPath, [...PAGEWORKS, 'serve', '--services', 'render'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        LANG: 'C.UTF-8',
        PAGEWORKS_HOST: '127.0.0.1',
        PAGEWORKS_DATA_DIR: dataDir,
        TMPDIR: tmpDir,
        RENDER_PORT: '0',
        RENDER_CONCURRENCY: '2',
        RENDER_RATE_LIMIT: '1000',
        // Short for the process that is killed, so the job it held is taken again within seconds; long for
        // the one that takes it, whose own lease could otherwise lapse on a loaded machine (a third attempt).
        RENDER_JOB_LEASE_MS: String(leaseMs),
        LOG_LEVEL: 'warn',
      },
    });
    children.push(child);
    let out = '';
    child.stdout?.on('data', (d) => (out += d));
    child.stderr?.on('data', (d) => (out += d));
    const until = Date.now() + 180_000;
    for (;;) {
      const m = /render\s+listening on (http:\/\/\S+)/.exec(out);
      if (m) return { child, url: m[1], output: () => out };
      if (child.exitCode !== null || Date.now() > until) throw new Error(`serve did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('is taken again after its lease lapses and succeeds', async () => {
    const first = await start();
    const key = /render key\s+: (pwr_live_[0-9a-f]{32})/.exec(first.output())?.[1];
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    // 40 HTML parts keep the first attempt busy for seconds: the kill lands while it assembles.
    const parts = Array.from({ length: 200 }, (_, i) =>
      i % 5 === 0 ? { html: page(`Statement ${i}`) } : { pdf: tinyPdf(`Page ${i}`).toString('base64') },
    );
    const submit = await fetch(`${first.url}/v1/jobs`, { method: 'POST', headers, body: JSON.stringify({ parts }) });
    expect(submit.status).toBe(202);
    const { id } = (await submit.json()) as { id: string };
    const until = Date.now() + 60_000;
    let status = 'queued';
    while (status !== 'running' && Date.now() < until) {
      status = ((await (await fetch(`${first.url}/v1/jobs/${id}`, { headers })).json()) as { status: string }).status;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(status).toBe('running');
    await new Promise((r) => setTimeout(r, 500));
    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await exited;
    // What it could not remove: its parts spilled so far, and Chromium's profile.
    expect(dirsOf(first.child.pid)).toEqual(expect.arrayContaining(['assembly', 'chromium']));

    const second = await start(60_000);
    let job = { status: '', attempts: 0, pdf: null as { pages: number } | null };
    const deadline = Date.now() + 180_000;
    while (Date.now() < deadline) {
      job = (await (await fetch(`${second.url}/v1/jobs/${id}`, { headers })).json()) as typeof job;
      if (job.status === 'succeeded' || job.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(job.status).toBe('succeeded');
    expect(job.attempts).toBe(2);
    expect(job.pdf?.pages).toBe(200);
    const pdf = Buffer.from(await (await fetch(`${second.url}/v1/jobs/${id}/pdf`, { headers })).arrayBuffer());
    expect(pageCount(pdf)).toBe(200);
    const texts = pageTexts(pdf);
    expect(texts[0]).toContain('Statement 0');
    expect(texts[199]).toContain('Page 199');
    // The process that took the job over removed them (in the background), each kind with its own first directory.
    await vi.waitFor(() => expect(dirsOf(first.child.pid)).not.toContain('assembly'), { timeout: 10_000 });
    await vi.waitFor(() => expect(dirsOf(first.child.pid)).not.toContain('chromium'), { timeout: 10_000 });
    const stopped = new Promise((resolve) => second.child.once('exit', resolve));
    second.child.kill('SIGTERM');
    await stopped;
  }, 600_000);
});
