import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { createdKey, keyIdOf, signUp } from '../dashboard/client.js';
import { DATABASE_URL, REDIS_URL } from '../helpers/backends.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { parseMetrics, sample } from '../helpers/prometheus.js';
import { type FreshDatabase, freshDatabase } from './backends.js';
import { type Answer, call, Seeder, startTargetPage } from './cluster.js';
import { Instance, runCli } from './instances.js';

const statuses = (answers: Answer[]) => answers.map((a) => a.status);
const count = (answers: Answer[], status: number) => answers.filter((a) => a.status === status).length;

describe.skipIf(!DATABASE_URL || !REDIS_URL)('two metadata and two render instances on shared PostgreSQL and Redis', () => {
  let db: FreshDatabase;
  let seeder: Seeder;
  let target: Awaited<ReturnType<typeof startTargetPage>>;
  let metadata: Instance[] = [];
  let render: Instance[] = [];

  beforeAll(async () => {
    db = await freshDatabase(DATABASE_URL!);
    target = await startTargetPage();
    const env = { DATABASE_URL: db.url, REDIS_URL: REDIS_URL!, EGRESS_ALLOW: '127.0.0.1/32', METADATA_CACHE_TTL_S: '0' };
    // All four start at once on the empty database: the migration race happens here too.
    const started = await Promise.allSettled([
      Instance.start('metadata', env),
      Instance.start('metadata', env),
      Instance.start('render', env),
      Instance.start('render', env),
    ]);
    const ok = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    metadata = ok.filter((i) => i.service === 'metadata');
    render = ok.filter((i) => i.service === 'render');
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    seeder = await Seeder.open(db.url);
  });

  afterAll(async () => {
    await Promise.all([...metadata, ...render].map((i) => i.stop()));
    await seeder?.close();
    await target?.close();
    await db?.drop();
  });

  for (const service of ['metadata', 'render'] as const) {
    it(`${service}: a 20/min account gets exactly 20 successes spread over both instances, then 429 on both`, async () => {
      const pair = service === 'metadata' ? metadata : render;
      const { key } = await seeder.key(service, 20);
      const first: Answer[] = [];
      for (let i = 0; i < 20; i++) first.push(await call(pair[i % 2]!, key, target.url));
      expect(statuses(first)).toEqual(Array(20).fill(200));
      expect(first[19]!.headers.get('ratelimit')).toMatch(new RegExp(`^"${service}";r=0;t=\\d+$`));
      expect(first[19]!.headers.get('ratelimit-policy')).toBe(`"${service}";q=20;w=60`);

      const over = await Promise.all([0, 1, 0, 1].map((n) => call(pair[n]!, key, target.url)));
      expect(statuses(over)).toEqual([429, 429, 429, 429]);
      for (const answer of over) expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    });
  }

  it('metadata: 40 concurrent requests over both instances admit exactly 20', async () => {
    const { key } = await seeder.key('metadata', 20);
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => call(metadata[i % 2]!, key, target.url)));
    expect(count(answers, 200)).toBe(20);
    expect(count(answers, 429)).toBe(20);
  });

  it('a key revoked with the CLI is refused by both instances on the next request', async () => {
    const { key } = await seeder.key('metadata', null);
    expect((await call(metadata[0]!, key, target.url)).status).toBe(200);
    expect((await call(metadata[1]!, key, target.url)).status).toBe(200);
    const revoked = await runCli(['keys', 'revoke', '--key', key], { DATABASE_URL: db.url });
    expect(revoked.stderr).toBe('');
    expect(revoked.code).toBe(0);
    const after = await call(metadata[1]!, key, target.url);
    expect(after.status).toBe(401);
    expect(JSON.parse(after.body)).toEqual({ detail: 'API key revoked' });
    expect((await call(metadata[0]!, key, target.url)).status).toBe(401);
  });

  it('a key created and revoked in the dashboard (same PostgreSQL) is refused by both instances on the next request', async () => {
    const core = await createTestCore({ DATABASE_URL: db.url });
    const dashboard = await buildDashboardApp(core);
    try {
      const client = await signUp(dashboard, `scale-${process.pid}@example.com`);
      const created = await client.createKey({ service: 'metadata', name: 'scale' });
      const key = createdKey(created.body);
      expect((await call(metadata[0]!, key, target.url)).status).toBe(200);
      expect((await call(metadata[1]!, key, target.url)).status).toBe(200);
      const id = keyIdOf(created.body, key);
      await client.get(`/keys/${id}/revoke`);
      expect((await client.post(`/keys/${id}/revoke`, { _csrf: client.csrf() })).statusCode).toBe(303);
      const after = await Promise.all(metadata.map((i) => call(i, key, target.url)));
      expect(statuses(after)).toEqual([401, 401]);
      expect(JSON.parse(after[1]!.body)).toEqual({ detail: 'API key revoked' });
    } finally {
      await dashboard.close();
      await closeTestCore(core);
    }
  });

  it('/metrics of each instance counts the requests that instance answered', async () => {
    const scrape = async (i: Instance) => parseMetrics(await (await fetch(`${i.url}/metrics`)).text());
    const ok = sample('pageworks_http_requests_total', { route: '/v1/fetch', method: 'GET', status: '200', service: 'metadata' });
    const latency = sample('pageworks_http_request_duration_seconds_count', {
      route: '/v1/fetch',
      method: 'GET',
      status: '200',
      service: 'metadata',
    });
    const rejections = sample('pageworks_rate_limit_rejections_total', { service: 'metadata' });
    const before = await Promise.all(metadata.map(scrape));
    const { key } = await seeder.key('metadata', 5);
    for (const n of [0, 0, 0, 1, 1]) expect((await call(metadata[n]!, key, target.url)).status).toBe(200);
    expect((await call(metadata[1]!, key, target.url)).status).toBe(429);
    const after = await Promise.all(metadata.map(scrape));
    expect(after[0]!.get(ok)! - (before[0]!.get(ok) ?? 0)).toBe(3);
    expect(after[1]!.get(ok)! - (before[1]!.get(ok) ?? 0)).toBe(2);
    expect(after[0]!.get(latency)! - (before[0]!.get(latency) ?? 0)).toBe(3);
    expect(after[1]!.get(rejections)! - (before[1]!.get(rejections) ?? 0)).toBe(1);
    expect(after[0]!.get(rejections) ?? 0).toBe(before[0]!.get(rejections) ?? 0);
    expect(after[1]!.get(sample('pageworks_rate_limiter_degraded', { service: 'metadata' }))).toBe(0);
  });

  // Last: it stops the metadata instances.
  it('usage and last-used batched by both metadata instances add up once they stop', async () => {
    const { key, accountId } = await seeder.key('metadata', null);
    const startedAt = Date.now();
    for (let i = 0; i < 10; i++) expect((await call(metadata[i % 2]!, key, target.url)).status).toBe(200);
    const lastCall = Date.now();
    expect(await Promise.all(metadata.map((i) => i.stop('SIGTERM')))).toEqual([0, 0]);
    const usage = await db.query<{ outcome: string; count: string }>(
      'select outcome, count from usage_daily where account_id = $1',
      [accountId],
    );
    expect(usage.map((u) => [u.outcome, Number(u.count)])).toEqual([['ok', 10]]);
    // Per key too, by day and by hour (both instances' batches upserted into the same rows).
    for (const table of ['usage_daily_keys', 'usage_hourly_keys']) {
      const perKey = await db.query<{ total: string }>(
        `select coalesce(sum(count), 0) as total from ${table} where account_id = $1`,
        [accountId],
      );
      expect(Number(perKey[0]!.total), table).toBe(10);
    }
    const [lastUsed] = await db.query<{ last_used_at: string }>('select last_used_at from api_keys where account_id = $1', [
      accountId,
    ]);
    expect(Number(lastUsed!.last_used_at)).toBeGreaterThanOrEqual(startedAt);
    expect(Number(lastUsed!.last_used_at)).toBeLessThanOrEqual(lastCall);
  });
});
