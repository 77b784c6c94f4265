import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src/store/postgres.js';
import { DATABASE_URL } from '../helpers/backends.js';
import { type FreshDatabase, freshDatabase } from './backends.js';
import { runCli } from './instances.js';

describe.skipIf(!DATABASE_URL)('migration race on PostgreSQL', () => {
  let db: FreshDatabase;

  beforeAll(async () => {
    db = await freshDatabase(DATABASE_URL!, 'pw_race');
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('four processes starting at once on an empty database leave one correct schema', async () => {
    // Each CLI process opens the store, which migrates: four migrators race on the empty database.
    const results = await Promise.all(
      [1, 2, 3, 4].map((n) => runCli(['accounts', 'create', '--email', `racer${n}@example.com`], { DATABASE_URL: db.url })),
    );
    for (const r of results) {
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    }

    const migrations = await db.query<{ name: string }>('select name from kysely_migration order by name');
    expect(migrations.map((m) => m.name)).toEqual([
      '0001_initial',
      '0002_account_recovery',
      '0003_usage_per_key',
      '0004_credential_version',
      '0005_render_jobs',
      '0006_webhooks',
      '0007_render_log',
      '0007b_job_report',
      '0008_job_limits',
      '0009_webhook_rotation',
      '0010_signing_certificates',
      '0011_job_uploads',
    ]);
    const tables = await db.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public' order by table_name",
    );
    expect(tables.map((t) => t.table_name)).toEqual([
      'accounts',
      'activity_log',
      'api_keys',
      'key_reveals',
      'kysely_migration',
      'kysely_migration_lock',
      'password_reset_tokens',
      'render_jobs',
      'render_log',
      'sessions',
      'signing_certificates',
      'usage_daily',
      'usage_daily_keys',
      'usage_hourly_keys',
      'webhook_deliveries',
      'webhook_secrets',
    ]);
    const columns = await db.query<{ column_name: string }>(
      "select column_name from information_schema.columns where table_name = 'api_keys' order by ordinal_position",
    );
    expect(columns.map((c) => c.column_name)).toEqual([
      'id',
      'account_id',
      'service',
      'key_hash',
      'display_prefix',
      'name',
      'created_at',
      'last_used_at',
      'revoked_at',
    ]);
    const accounts = await db.query<{ email: string }>('select email from accounts order by email');
    expect(accounts.map((a) => a.email)).toEqual([1, 2, 3, 4].map((n) => `racer${n}@example.com`));
  });

  it('eight stores opened in the same instant (no process start-up jitter to hide a race) migrate once', async () => {
    const second = await freshDatabase(DATABASE_URL!, 'pw_race');
    try {
      const stores = await Promise.all(Array.from({ length: 8 }, () => openPostgresStore(second.url)));
      await Promise.all(stores.map((s) => s.close()));
      const migrations = await second.query<{ name: string }>('select name from kysely_migration order by name');
      expect(migrations.map((m) => m.name)).toEqual([
        '0001_initial',
        '0002_account_recovery',
        '0003_usage_per_key',
        '0004_credential_version',
        '0005_render_jobs',
        '0006_webhooks',
        '0007_render_log',
        '0007b_job_report',
        '0008_job_limits',
        '0009_webhook_rotation',
        '0010_signing_certificates',
        '0011_job_uploads',
      ]);
      expect(await second.query("select 1 from information_schema.tables where table_schema = 'public'")).toHaveLength(16);
    } finally {
      await second.drop();
    }
  });
});
