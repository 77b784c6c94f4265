import { expect } from 'vitest';
import { newId, newTimeOrderedId } from '../../src/ids.js';
import type { Store } from '../../src/store/store.js';

/** Waits until `check` holds, looking every 20 ms; throws naming `what` after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A new account straight in the store; returns its id. */
export async function storeAccount(store: Store): Promise<string> {
  const id = newId('acc');
  await store.createAccount({ id, email: `${id}@example.com`, passwordHash: null, createdAt: Date.now() });
  return id;
}

/** Queues a job of the account straight in the store (submitted at `createdAt`, default now); returns its id. */
export async function queueJob(
  store: Store,
  accountId: string,
  opts: { id?: string; createdAt?: number; reference?: string | null; webhookUrl?: string | null } = {},
): Promise<string> {
  // Time-ordered, as the queue makes them: events due in the same millisecond go out in submission order.
  const id = opts.id ?? newTimeOrderedId('job', opts.createdAt ?? Date.now());
  await store.insertJob({
    id,
    accountId,
    request: '{"html":"<p>x</p>"}',
    reference: opts.reference === undefined ? `ref-${id.slice(-6)}` : opts.reference,
    idempotencyKey: null,
    requestHash: null,
    webhookUrl: opts.webhookUrl === undefined ? 'https://hooks.example.test/in' : opts.webhookUrl,
    createdAt: opts.createdAt ?? Date.now(),
  });
  return id;
}

/**
 * A job of the account that has just ended, as the worker leaves it (its webhook to `url` due now):
 * queued, claimed (every other job of the store must be final by then) and finished.
 */
export async function finishedJob(
  store: Store,
  accountId: string,
  url: string,
  outcome: 'succeeded' | 'failed' = 'succeeded',
): Promise<string> {
  const id = await queueJob(store, accountId, { webhookUrl: url });
  const claimed = await store.claimJob('test-worker', Date.now(), { leaseMs: 60_000, maxAttempts: 3 });
  expect(claimed?.id).toBe(id);
  const result =
    outcome === 'succeeded'
      ? { pdf: { key: `${accountId}/${id}.pdf`, bytes: 1234, pages: 1, expiresAt: Date.now() + 3_600_000, store: 'files:test' } }
      : { error: { code: 'RENDER_TIMEOUT', message: 'the document was not ready within 30000 ms' } };
  expect(await store.finishJob(id, 'test-worker', Date.now(), result)).toBe(true);
  return id;
}
