/**
 * Nothing is lost when the process dies: a real `pageworks serve --services render` on a temporary
 * data dir gets 50 jobs, is SIGKILLed mid-burst, and is started again on the same data dir; all 50
 * jobs succeed (the ones it was rendering are taken again when their lease lapses), and every job's
 * webhook reaches a loopback receiver, signed, with duplicates (an event sent again after the crash)
 * sharing one `webhook-id`.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PAGEWORKS } from '../helpers/pageworks-command.js';
import { type Delivery, startWebhookSink, type WebhookSink } from '../helpers/webhook-sink.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-sigkill-'));
const children: ChildProcess[] = [];
const hooks: Delivery[] = [];
let receiver: WebhookSink;
let hookUrl: string;

beforeAll(async () => {
  receiver = await startWebhookSink(hooks);
  hookUrl = receiver.url;
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
  await receiver?.close();
});

/** Starts `serve --services render` on the data dir and waits for its address; returns it and the output so far. */
async function start(): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, [...PAGEWORKS, 'serve', '--services', 'render'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LANG: 'C.UTF-8',
      PAGEWORKS_HOST: '127.0.0.1',
      PAGEWORKS_DATA_DIR: dataDir,
      RENDER_PORT: '0',
      RENDER_CONCURRENCY: '2',
      RENDER_RATE_LIMIT: '1000',
      // Short, so the jobs the killed process held are taken again within seconds.
      RENDER_JOB_LEASE_MS: '3000',
      // The webhook receiver is this test, on loopback.
      EGRESS_ALLOW: '127.0.0.1/32',
      LOG_LEVEL: 'warn',
    },
  });
  children.push(child);
  let out = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (out += d));
  const until = Date.now() + 90_000;
  for (;;) {
    const m = /render\s+listening on (http:\/\/\S+)/.exec(out);
    if (m) return { child, url: m[1], output: () => out };
    if (child.exitCode !== null || Date.now() > until) throw new Error(`serve did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

it('SIGKILL with 50 jobs queued, then a restart on the same data dir: all 50 succeed', async () => {
  const first = await start();
  const key = /render key\s+: (pwr_live_[0-9a-f]{32})/.exec(first.output())?.[1];
  expect(key).toBeDefined();
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const ids: string[] = [];
  for (let i = 0; i < 50; i++) {
    const res = await fetch(`${first.url}/v1/jobs`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ html: `<h1>Invoice ${i}</h1>`, reference: `inv-${i}`, webhook: { url: hookUrl } }),
    });
    expect(res.status).toBe(202);
    ids.push(((await res.json()) as { id: string }).id);
  }
  // Mid-burst: wait until rendering has begun, then kill without warning.
  const until = Date.now() + 60_000;
  for (;;) {
    const list = (await (await fetch(`${first.url}/v1/jobs?status=succeeded&limit=100`, { headers })).json()) as {
      data: unknown[];
    };
    if (list.data.length >= 3 || Date.now() > until) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const exited = new Promise((resolve) => first.child.once('exit', resolve));
  first.child.kill('SIGKILL');
  await exited;

  const second = await start();
  const states = new Map<string, string>();
  const attempts = new Map<string, number>();
  const deadline = Date.now() + 240_000;
  while (Date.now() < deadline) {
    for (const id of ids) {
      if (['succeeded', 'failed', 'canceled'].includes(states.get(id) ?? '')) continue;
      const res = await fetch(`${second.url}/v1/jobs/${id}`, { headers });
      const job = (await res.json()) as { status: string; attempts: number };
      states.set(id, job.status);
      attempts.set(id, job.attempts);
    }
    if ([...states.values()].every((s) => s === 'succeeded' || s === 'failed')) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const counts: Record<string, number> = {};
  for (const s of states.values()) counts[s] = (counts[s] ?? 0) + 1;
  expect(counts).toEqual({ succeeded: 50 });
  const retaken = [...attempts.values()].filter((n) => n > 1).length;
  console.log(`sigkill: 50 of 50 succeeded after the restart; ${retaken} were taken again after their lease lapsed`);
  // Every PDF downloads from the restarted process.
  for (const id of ids.slice(0, 5)) {
    const pdf = await fetch(`${second.url}/v1/jobs/${id}/pdf`, { headers });
    expect(pdf.status).toBe(200);
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
  }
  // Every job's webhook arrives (some before the kill, the rest from the restarted process), signed with
  // the account's secret; an event sent twice (its first attempt was in flight at the kill) keeps its webhook-id.
  const received = () => new Set(hooks.map((h) => (JSON.parse(h.body) as { data: { id: string } }).data.id));
  const hooksDeadline = Date.now() + 60_000;
  while (received().size < ids.length && Date.now() < hooksDeadline) await new Promise((r) => setTimeout(r, 100));
  expect([...received()].sort()).toEqual([...ids].sort());
  const cli = spawnSync(process.execPath, [...PAGEWORKS, 'webhooks', 'secret', '--email', 'local@pageworks.localhost'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, PAGEWORKS_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
  expect(cli.status, cli.stderr).toBe(0);
  const verifier = new Webhook(cli.stdout.trim());
  const idsByJob = new Map<string, Set<string>>();
  for (const hook of hooks) {
    const event = verifier.verify(hook.body, hook.headers) as { type: string; data: { id: string; status: string } };
    expect(event).toMatchObject({ type: 'job.succeeded', data: { status: 'succeeded' } });
    const seen = idsByJob.get(event.data.id) ?? new Set<string>();
    seen.add(hook.headers['webhook-id'] ?? '');
    idsByJob.set(event.data.id, seen);
  }
  for (const [jobId, webhookIds] of idsByJob) expect([...webhookIds]).toEqual([`msg_${jobId}`]);
  console.log(
    `sigkill: ${hooks.length} webhook deliveries for 50 jobs (${hooks.length - 50} duplicates, each with its event's webhook-id)`,
  );
  const stopped = new Promise((resolve) => second.child.once('exit', resolve));
  second.child.kill('SIGTERM');
  await stopped;
}, 420_000);
