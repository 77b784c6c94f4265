/**
 * Statements over many jobs never wait on a job another transaction holds (PostgreSQL): an account's
 * deletion locks its jobs in the order its cascade finds them, so a claim that held one job and waited
 * on another could deadlock with it, and PostgreSQL would break the tie by failing one of the two. A
 * plain transaction holding one job stands in for the deletion here; each statement must finish without
 * waiting, leave the held job for its next round, and take it once it is free.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres.js';
import type { Store } from '../../src/store/store.js';
import { DATABASE_URL, uniqueName } from '../helpers/backends.js';
import { dropSchema } from '../helpers/store-backends.js';
import { queueJob, storeAccount } from '../helpers/webhook-jobs.js';

const t0 = 1_700_000_000_000;

describe.skipIf(!DATABASE_URL)('statements over many jobs skip a job another transaction holds (PostgreSQL)', () => {
  const schema = uniqueName('heldrows');
  let store: Store;
  let holder: pg.Client;
  let observer: pg.Client;
  let holderPid: number;

  beforeAll(async () => {
    store = await openPostgresStore(DATABASE_URL ?? '', { schema });
    holder = new pg.Client({ connectionString: DATABASE_URL });
    observer = new pg.Client({ connectionString: DATABASE_URL });
    await holder.connect();
    await observer.connect();
    holderPid = (await holder.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0].pid;
  });
  afterAll(async () => {
    await holder?.end();
    await observer?.end();
    await store?.close();
    await dropSchema(schema);
  });

  /** Two jobs of a new account, in the state `set` gives them (SQL assignments on render_jobs). */
  async function twoJobs(set: string): Promise<[string, string]> {
    const account = await storeAccount(store);
    const ids: [string, string] = [
      await queueJob(store, account, { id: `job_${account}_1`, createdAt: t0 }),
      await queueJob(store, account, { id: `job_${account}_2`, createdAt: t0 + 1 }),
    ];
    await observer.query(`update ${schema}.render_jobs set ${set} where account_id = $1`, [account]);
    return ids;
  }

  /** Begins a transaction on the holder that locks `jobId`, as a deletion's cascade does. */
  async function hold(jobId: string) {
    await holder.query('begin');
    const { rowCount } = await holder.query(`select id from ${schema}.render_jobs where id = $1 for update`, [jobId]);
    expect(rowCount).toBe(1);
  }

  /**
   * What `work` returns, or 'waited' as soon as its statement is seen waiting on the holder's lock; then
   * the holder lets go so the statement can end before the next test.
   */
  async function unlessItWaits<T>(work: Promise<T>): Promise<T | 'waited'> {
    let settled = false;
    const result = work.finally(() => {
      settled = true;
    });
    while (!settled) {
      const { rows } = await observer.query<{ n: number }>(
        'select count(*)::int as n from pg_stat_activity where $1 = any(pg_blocking_pids(pid))',
        [holderPid],
      );
      if (rows[0].n > 0) {
        await holder.query('rollback');
        await result;
        return 'waited';
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    return result;
  }

  it('claims due webhooks of the jobs it can lock, and the held one once it is free', async () => {
    const due = `status = 'failed', finished_at = ${t0}, webhook_state = 'pending', webhook_next_at = ${t0}`;
    const [free, held] = await twoJobs(due);
    await hold(held);
    const claimed = await unlessItWaits(store.claimDueWebhooks(t0 + 10, t0 + 60_000, 10, 2));
    expect(claimed === 'waited' ? claimed : claimed.map((j) => j.id)).toEqual([free]);
    await holder.query('commit');
    const next = await store.claimDueWebhooks(t0 + 10, t0 + 60_000, 10, 2);
    expect(next.map((j) => j.id)).toEqual([held]);
  });

  it('sweeps the finished jobs it can lock, and the held one once it is free', async () => {
    const [free, held] = await twoJobs(`status = 'succeeded', finished_at = ${t0}, webhook_state = 'delivered'`);
    await hold(held);
    expect(await unlessItWaits(store.deleteFinishedJobs(t0 + 10, 100))).toBe(1);
    await holder.query('commit');
    expect(await store.findJob(free)).toBeUndefined();
    expect((await store.findJob(held))?.id).toBe(held);
    expect(await store.deleteFinishedJobs(t0 + 10, 100)).toBe(1);
    expect(await store.findJob(held)).toBeUndefined();
  });

  it('fails the lapsed jobs out of attempts it can lock, and the held one once it is free', async () => {
    const lapsed = `status = 'running', attempts = 3, lease_owner = 'gone', lease_expires_at = ${t0}, started_at = ${t0}`;
    const [free, held] = await twoJobs(lapsed);
    await hold(held);
    expect(await unlessItWaits(store.claimJob('worker', t0 + 10, { leaseMs: 60_000, maxAttempts: 3 }))).toBeUndefined();
    await holder.query('commit');
    expect((await store.findJob(free))?.status).toBe('failed');
    expect((await store.findJob(held))?.status).toBe('running');
    expect(await store.claimJob('worker', t0 + 10, { leaseMs: 60_000, maxAttempts: 3 })).toBeUndefined();
    expect((await store.findJob(held))?.status).toBe('failed');
  });
});
