/**
 * The worker over a real SQLite store with a result store whose uploads can be held: a job storing
 * its PDF no longer holds a render slot (the next job renders meanwhile), and a stalled store bounds
 * how many jobs are claimed (twice the concurrency), leaving the rest queued for other workers.
 * The renderer is a stand-in (the worker takes the pool as a dependency): what is tested is the
 * worker's slot accounting, not Chromium.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { JobQueue } from '../../src/jobs/queue.js';
import { FileResultStore } from '../../src/jobs/results/file-results.js';
import { JobWorker } from '../../src/jobs/worker.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';

const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Pages /Count 1 >> endobj\n%%EOF\n');
const quiet = { info() {}, warn() {}, error() {} };
let dir: string;
let store: Store;
let files: FileResultStore;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-overlap-'));
  store = await openSqliteStore(dir);
  files = new FileResultStore(path.join(dir, 'results'));
});
afterAll(async () => {
  await store?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A result store whose puts wait until `release()`. */
function heldUploads() {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let puts = 0;
  const results = {
    kind: files.kind,
    get id() {
      return files.id;
    },
    put: async (key: string, bytes: Buffer) => {
      puts += 1;
      await gate;
      await files.put(key, bytes);
    },
    putFile: (key: string, file: string) => files.putFile(key, file),
    get: (key: string) => files.get(key),
    delete: (key: string) => files.delete(key),
    close: async () => {},
  };
  return { results, release, puts: () => puts };
}

async function until(check: () => boolean | Promise<boolean>, what: string) {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`still not: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function scenario(jobs: number) {
  const accountId = `acc_overlap_${jobs}`;
  await store.createAccount({ id: accountId, email: `${accountId}@example.com`, passwordHash: null, createdAt: Date.now() });
  const held = heldUploads();
  const queue = new JobQueue({ store, results: held.results, maxQueuedPerAccount: 100 });
  const ids: string[] = [];
  for (let i = 0; i < jobs; i++)
    ids.push(
      (
        await queue.submit(accountId, {
          request: { html: `<p>${i}</p>` },
          reference: null,
          webhookUrl: null,
          idempotencyKey: null,
        })
      ).row.id,
    );
  const rendered: string[] = [];
  const worker = new JobWorker({
    store,
    results: held.results,
    pool: {
      render: async (_account: string, html: string) => {
        rendered.push(html);
        return { pdf: PDF, pages: 1, warnings: [], claims: [] };
      },
    },
    concurrency: 1,
    leaseMs: 30_000,
    maxAttempts: 3,
    retentionMs: 3_600_000,
    log: quiet,
    pollMs: 20,
  });
  worker.start();
  const statuses = async () => Promise.all(ids.map(async (id) => (await store.findJob(id))?.status));
  return { ids, worker, held, rendered, statuses };
}

it('with one slot, the second job renders while the first one’s PDF upload is held', async () => {
  const { worker, held, rendered, statuses } = await scenario(2);
  await until(() => rendered.length === 2, 'both jobs rendered while the first upload is held');
  expect(held.puts()).toBe(2);
  expect(await statuses()).toEqual(['running', 'running']);
  held.release();
  await until(async () => (await statuses()).every((s) => s === 'succeeded'), 'both jobs succeeded');
  await worker.stop(1000);
});

it('a stalled result store bounds the claims at twice the concurrency; the other jobs stay queued', async () => {
  const { worker, held, rendered, statuses } = await scenario(5);
  await until(() => held.puts() === 2, 'two uploads held');
  // Give the worker time to claim more if it would (many polls at 20 ms).
  await new Promise((r) => setTimeout(r, 500));
  expect(rendered).toHaveLength(2);
  expect(await statuses()).toEqual(['running', 'running', 'queued', 'queued', 'queued']);
  held.release();
  await until(async () => (await statuses()).every((s) => s === 'succeeded'), 'all five succeeded');
  await worker.stop(1000);
});
