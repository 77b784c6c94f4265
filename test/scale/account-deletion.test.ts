import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { createdKey, signUp } from '../dashboard/client.js';
import { DATABASE_URL, REDIS_URL } from '../helpers/backends.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { type FreshDatabase, freshDatabase } from './backends.js';
import { call, Seeder, startTargetPage } from './cluster.js';
import { Instance, runCli } from './instances.js';

describe.skipIf(!DATABASE_URL || !REDIS_URL)(
  'account deletion with two metadata instances on shared PostgreSQL and Redis',
  () => {
    let db: FreshDatabase;
    let seeder: Seeder;
    let target: Awaited<ReturnType<typeof startTargetPage>>;
    let metadata: Instance[] = [];

    beforeAll(async () => {
      db = await freshDatabase(DATABASE_URL!);
      target = await startTargetPage();
      const env = { DATABASE_URL: db.url, REDIS_URL: REDIS_URL!, EGRESS_ALLOW: '127.0.0.1/32', METADATA_CACHE_TTL_S: '300' };
      const started = await Promise.allSettled([Instance.start('metadata', env), Instance.start('metadata', env)]);
      metadata = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
      const failed = started.find((s) => s.status === 'rejected');
      if (failed) throw (failed as PromiseRejectedResult).reason;
      seeder = await Seeder.open(db.url);
    }, 120_000);

    afterAll(async () => {
      await Promise.all(metadata.map((i) => i.stop()));
      await seeder?.close();
      await target?.close();
      await db?.drop();
    });

    it('pageworks accounts delete: the next request with any of its keys gets 401 on both instances', async () => {
      const email = 'deleted-by-cli@example.com';
      const keys = [(await seeder.key('metadata', null, email)).key, (await seeder.key('metadata', null, email)).key];
      const bystander = (await seeder.key('metadata', null)).key;
      for (const key of keys) for (const instance of metadata) expect((await call(instance, key, target.url)).status).toBe(200);

      const deleted = await runCli(['accounts', 'delete', '--email', email], { DATABASE_URL: db.url, REDIS_URL: REDIS_URL! });
      expect(deleted.stderr).toBe('');
      expect(deleted.code).toBe(0);

      for (const key of keys) {
        for (const instance of metadata) {
          const answer = await call(instance, key, target.url);
          expect(answer.status).toBe(401);
          expect(JSON.parse(answer.body)).toEqual({ detail: 'unknown API key' });
        }
      }
      for (const instance of metadata) expect((await call(instance, bystander, target.url)).status).toBe(200);
    });

    it('deletion from the dashboard: the same, on both instances', async () => {
      const core = await createTestCore({ DATABASE_URL: db.url, REDIS_URL: REDIS_URL! });
      const app = await buildDashboardApp(core);
      try {
        const client = await signUp(app, 'deleted-in-dashboard@example.com');
        const keys: string[] = [];
        for (let i = 0; i < 2; i++) {
          await client.createKey({ service: 'metadata' });
          keys.push(createdKey(client.body));
        }
        for (const key of keys) for (const instance of metadata) expect((await call(instance, key, target.url)).status).toBe(200);
        const res = await client.submit('/account', '/account/delete', { password: 'correct horse battery staple' });
        expect(res.headers.location).toBe('/login?deleted');
        for (const key of keys) for (const instance of metadata) expect((await call(instance, key, target.url)).status).toBe(401);
      } finally {
        await app.close();
        await closeTestCore(core);
      }
    });

    it("the instances' pending usage counts of the deleted accounts do not jam their usage writes", async () => {
      // Each instance flushes usage every 10 s; its batch holds counts of both deleted accounts.
      const { accountId, key } = await seeder.key('metadata', null);
      for (const instance of metadata) expect((await call(instance, key, target.url)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 11_000));
      for (const instance of metadata) expect(instance.output).not.toContain('could not write usage counters');
      const rows = await db.query<{ count: string }>('select sum(count) as count from usage_daily where account_id = $1', [
        accountId,
      ]);
      expect(Number(rows[0]!.count)).toBe(2);
    }, 30_000);
  },
);
