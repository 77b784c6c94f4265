/**
 * SIGTERM on a real `pageworks serve --services render` with a sync render and jobs in flight and one
 * job queued: nothing more is claimed from the signal on, the in-flight renders finish side by side
 * (not one after the other), the process exits within RENDER_TIMEOUT_MS + 5 s, the queued job is
 * still queued with no attempt counted, and the usage of the last requests was written before exit.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { type CoreDeps, closeCore, createCore } from '../../src/app/core.js';
import { loadConfig } from '../../src/config.js';
import { Instance } from '../scale/instances.js';

/** A render that takes about `ms` after load: printing waits for window.pageworksReady. */
const slowDocument = (ms: number) =>
  `<h1>Slow ${ms}</h1><script>window.pageworksReady = new Promise((r) => setTimeout(r, ${ms}));</script>`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const today = () => new Date().toISOString().slice(0, 10);

/** The store of a data dir, opened beside the server (SQLite allows it) to watch jobs without API reads. */
async function storeOf(dataDir: string): Promise<CoreDeps> {
  return createCore(loadConfig({ PAGEWORKS_DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), pino({ level: 'silent' }));
}

async function waitRunning(core: CoreDeps, ids: string[]): Promise<void> {
  const until = Date.now() + 30_000;
  for (;;) {
    const rows = await Promise.all(ids.map((id) => core.store.findJob(id)));
    if (rows.every((r) => r?.status === 'running')) return;
    if (Date.now() > until) throw new Error(`jobs not running: ${rows.map((r) => r?.status).join(', ')}`);
    await sleep(50);
  }
}

interface Scenario {
  env: Record<string, string>;
  syncMs: number;
  jobMs: number[];
}

/** Runs one scenario; returns the time from SIGTERM to exit and what the store says afterwards. */
async function drain(s: Scenario, dataDir: string) {
  const instance = await Instance.start('render', {
    PAGEWORKS_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    RENDER_RATE_LIMIT: '1000',
    ...s.env,
  });
  const key = /render key\s+: (pwr_live_\w+)/.exec(instance.output)?.[1];
  if (!key) throw new Error(`no render key printed:\n${instance.output}`);
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const submit = async (html: string) => {
    const res = await fetch(`${instance.url}/v1/jobs`, { method: 'POST', headers, body: JSON.stringify({ html }) });
    expect(res.status).toBe(202);
    return ((await res.json()) as { id: string }).id;
  };
  const watcher = await storeOf(dataDir);
  try {
    const running = await Promise.all(s.jobMs.map((ms) => submit(slowDocument(ms))));
    await waitRunning(watcher, running);
    const sync = fetch(`${instance.url}/v1/render`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ html: slowDocument(s.syncMs) }),
    });
    // Every job slot is busy: this one waits in the queue.
    const queued = await submit('<h1>Queued at SIGTERM</h1>');
    await sleep(500);
    const signaledAt = Date.now();
    const stopped = instance.stop('SIGTERM');
    const res = await sync;
    const pdf = Buffer.from(await res.arrayBuffer());
    const code = await stopped;
    const exitMs = Date.now() - signaledAt;
    const jobs = await Promise.all(running.map((id) => watcher.store.findJob(id)));
    const left = await watcher.store.findJob(queued);
    const account = await watcher.store.findAccountByEmail('local@pageworks.localhost');
    const usage = await watcher.store.usageSince(account!.id, today());
    const ok = usage.filter((u) => u.service === 'render' && u.outcome === 'ok').reduce((n, u) => n + u.count, 0);
    const lastUsed = (await watcher.store.listKeys(account!.id, 'render')).map((k) => k.lastUsedAt);
    return {
      code,
      exitMs,
      status: res.status,
      pdf,
      jobs,
      left,
      ok,
      requests: running.length + 2,
      lastUsed,
      output: instance.output,
    };
  } finally {
    await closeCore(watcher);
    instance.kill();
  }
}

describe('serve --services render on SIGTERM with renders in flight', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });
  const dataDir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-drain-'));
    dirs.push(d);
    return d;
  };

  it('7 s sync + 6 s job in flight, a third job queued, RENDER_TIMEOUT_MS=8000: out within 13 s, both succeed', async () => {
    const r = await drain(
      { env: { RENDER_CONCURRENCY: '2', RENDER_TIMEOUT_MS: '8000' }, syncMs: 7000, jobMs: [6000] },
      dataDir(),
    );
    console.log(`sigterm (RENDER_TIMEOUT_MS=8000): exited ${r.code} ${r.exitMs} ms after the signal`);
    expect(r.code, r.output).toBe(0);
    expect(r.exitMs).toBeLessThan(13_000);
    expect(r.status).toBe(200);
    expect(r.pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(r.jobs.map((j) => [j?.status, j?.attempts])).toEqual([['succeeded', 1]]);
    expect([r.left?.status, r.left?.attempts]).toEqual(['queued', 0]);
    // The answers sent during the drain were counted: the batch was written before exit.
    expect(r.ok).toBe(r.requests);
    expect(r.lastUsed.every((t) => t !== null)).toBe(true);
  }, 90_000);

  it('default timeouts: 27 s sync + 25 s and 28 s jobs (53 s one after the other) are out within 35 s', async () => {
    const r = await drain({ env: { RENDER_CONCURRENCY: '3' }, syncMs: 27_000, jobMs: [25_000, 28_000] }, dataDir());
    console.log(`sigterm (default RENDER_TIMEOUT_MS=30000): exited ${r.code} ${r.exitMs} ms after the signal`);
    expect(r.code, r.output).toBe(0);
    expect(r.exitMs).toBeLessThan(35_000);
    expect(r.status).toBe(200);
    expect(r.jobs.map((j) => [j?.status, j?.attempts])).toEqual([
      ['succeeded', 1],
      ['succeeded', 1],
    ]);
    expect([r.left?.status, r.left?.attempts]).toEqual(['queued', 0]);
    expect(r.ok).toBe(r.requests);
  }, 120_000);
});
