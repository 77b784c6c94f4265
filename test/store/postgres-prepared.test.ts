import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres.js';
import type { NewRenderJob, Store } from '../../src/store/store.js';
import { DATABASE_URL, uniqueName } from '../helpers/backends.js';
import { dropSchema } from '../helpers/store-backends.js';

// The job queue's hot statements and the key lookup run as prepared statements on PostgreSQL
// (store/postgres.ts): a migration by a newer instance must not leave the connections of an older
// one unable to claim or to authenticate.

const t0 = 1_700_000_000_000;

function job(n: number): NewRenderJob {
  return {
    id: `job_${String(n).padStart(32, '0')}`,
    accountId: 'acc_prepared',
    request: '{"html":"<p>x</p>"}',
    reference: null,
    idempotencyKey: null,
    requestHash: null,
    webhookUrl: null,
    createdAt: t0 + n,
  };
}

/** Adds a column to a table of the schema on a connection of its own, as a newer instance's migration would. */
async function addColumn(schema: string, table: string): Promise<void> {
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`alter table ${schema}.${table} add column later_column text`);
  } finally {
    await admin.end();
  }
}

describe.skipIf(!DATABASE_URL)('PostgreSQL store: prepared statements', () => {
  const schema = uniqueName('prepared');
  let store: Store;

  beforeAll(async () => {
    // One connection: the claim after the migration runs where the claim before it was prepared.
    store = await openPostgresStore(DATABASE_URL ?? '', { schema, poolSize: 1 });
    await store.createAccount({ id: 'acc_prepared', email: 'prepared@example.com', passwordHash: null, createdAt: t0 });
  });
  afterAll(async () => {
    await store?.close();
    await dropSchema(schema);
  });

  it('claims and finishes jobs after the job table gained a column under its open connection', async () => {
    const claimAndFinish = async (n: number) => {
      await store.insertJob(job(n));
      const row = await store.claimJob('w1', t0 + 100, { leaseMs: 60_000, maxAttempts: 3 });
      expect(row?.id).toBe(job(n).id);
      expect(await store.finishJob(row!.id, 'w1', t0 + 200, { error: { code: 'RENDER_FAILED', message: 'x' } })).toBe(true);
    };
    await claimAndFinish(1);
    await addColumn(schema, 'render_jobs');
    await claimAndFinish(2);
    await claimAndFinish(3);
    expect(await store.findJob(job(3).id, 'acc_prepared')).toMatchObject({ status: 'failed', error_code: 'RENDER_FAILED' });
  });

  it('finds a key, and a revocation at once, after the key table gained a column under its open connection', async () => {
    await store.insertKey({
      id: 'key_prepared',
      accountId: 'acc_prepared',
      service: 'render',
      displayPrefix: 'pwr_live_abcd',
      name: 'prepared',
      createdAt: t0,
      keyHash: 'hash_prepared',
    });
    // Past PostgreSQL's five custom plans, so the statement runs on its cached generic plan.
    for (let i = 0; i < 7; i++) expect((await store.findKeyByHash('hash_prepared'))?.id).toBe('key_prepared');
    expect(await store.findKeyByHash('hash_other')).toBeUndefined();
    await addColumn(schema, 'api_keys');
    expect(await store.findKeyByHash('hash_prepared')).toMatchObject({
      id: 'key_prepared',
      revokedAt: null,
      limitOverride: null,
    });
    expect(await store.revokeKey('key_prepared', t0 + 1)).toBe(true);
    expect((await store.findKeyByHash('hash_prepared'))?.revokedAt).toBe(t0 + 1);
  });
});
