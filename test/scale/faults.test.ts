import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/accounts/key-format.js';
import { DATABASE_URL, REDIS_URL } from '../helpers/backends.js';
import { parseMetrics, sample } from '../helpers/prometheus.js';
import { type FreshDatabase, freshDatabase, OwnRedis, sleep, TcpForwarder } from './backends.js';
import { type Answer, call, eventually, getJson, Seeder, startTargetPage } from './cluster.js';
import { alive, descendants, Instance } from './instances.js';

const SERVICE = 'metadata';
const STORE_DOWN = { detail: 'the account store is unavailable; retry shortly' };

describe.skipIf(!DATABASE_URL || !REDIS_URL)('faults: Redis and PostgreSQL going away, SIGTERM under load', () => {
  let db: FreshDatabase;
  let seeder: Seeder;
  let target: Awaited<ReturnType<typeof startTargetPage>>;
  const instances: Instance[] = [];
  const cleanups: Array<() => Promise<unknown>> = [];
  const pg = new URL(DATABASE_URL ?? 'postgres://127.0.0.1:5432/x');
  const pgTarget = { host: pg.hostname, port: Number(pg.port || 5432) };

  const start = async (env: Record<string, string>, service: 'metadata' | 'render' = SERVICE) => {
    const instance = await Instance.start(service, { EGRESS_ALLOW: '127.0.0.1/32', METADATA_CACHE_TTL_S: '0', ...env });
    instances.push(instance);
    return instance;
  };
  const degraded = async (i: Instance) =>
    parseMetrics(await (await fetch(`${i.url}/metrics`)).text()).get(
      sample('pageworks_rate_limiter_degraded', { service: SERVICE }),
    );

  beforeAll(async () => {
    db = await freshDatabase(DATABASE_URL!);
    target = await startTargetPage();
    seeder = await Seeder.open(db.url);
  });
  afterAll(async () => {
    for (const i of instances) i.kill();
    for (const cleanup of cleanups) await cleanup().catch(() => {});
    await seeder?.close();
    await target?.close();
    await db?.drop();
  });

  it('Redis stopped mid-run: both instances keep serving with per-instance limits, then share limits again', async () => {
    const redis = await OwnRedis.start();
    cleanups.push(() => redis.stop());
    // The metadata cache is on and in the same Redis: it must degrade to misses, not hang or fail.
    const env = { DATABASE_URL: db.url, REDIS_URL: redis.url, METADATA_CACHE_TTL_S: '300' };
    const [a, b] = await Promise.all([start(env), start(env)]);
    const pair = [a!, b!];

    const shared = await seeder.key(SERVICE, 4);
    const up: Answer[] = [];
    for (let i = 0; i < 6; i++) up.push(await call(pair[i % 2]!, shared.key, target.url));
    expect(up.map((r) => r.status)).toEqual([200, 200, 200, 200, 429, 429]);

    await redis.stop();
    const perInstance = await seeder.key(SERVICE, 3);
    const down: Answer[] = [];
    for (let i = 0; i < 8; i++) down.push(await call(pair[i % 2]!, perInstance.key, target.url));
    // Each instance counts on its own: 3 each, so 6 successes in all, and nobody waits on the dead Redis.
    expect(down.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
    for (const r of down) expect(r.ms).toBeLessThan(1500);
    for (const r of down.filter((d) => d.status === 200)) expect(JSON.parse(r.body).title).toBe('Scale target');
    for (const i of pair) {
      // Logs arrive through a pipe, possibly after the HTTP answers: wait for them, briefly.
      await i.waitFor(/shared rate limiter unavailable; falling back to per-instance limits/, 3000);
      await i.waitFor(/metadata cache unavailable; treated as a miss/, 3000);
      expect(await degraded(i)).toBe(1);
      expect((await getJson(i, '/v1/health')).status).toBe(200);
    }

    // An instance started while Redis is down comes up in the same degraded mode.
    const late = await start(env);
    await late.waitFor(/Redis unreachable at start; serving with per-instance limits/, 3000);
    expect((await call(late, perInstance.key, target.url)).status).toBe(200);
    expect(await degraded(late)).toBe(1);

    await redis.resume();
    // The clients reconnect on their own (back-off capped at 2 s); any request then returns to Redis.
    const probe = await seeder.key(SERVICE, null);
    for (const i of [...pair, late]) {
      expect(await eventually(async () => (await call(i, probe.key, target.url), (await degraded(i)) === 0), 10_000)).toBe(true);
      await i.waitFor(/shared rate limiter is back/, 3000);
    }
    const again = await seeder.key(SERVICE, 4);
    const back: Answer[] = [];
    for (let i = 0; i < 6; i++) back.push(await call(pair[i % 2]!, again.key, target.url));
    expect(back.map((r) => r.status)).toEqual([200, 200, 200, 200, 429, 429]);
  });

  it('PostgreSQL refusing connections mid-run: 503 at once, readiness fails, service resumes on its own', async () => {
    const forwarder = await TcpForwarder.create(pgTarget);
    cleanups.push(() => forwarder.close());
    const instance = await start({ DATABASE_URL: db.urlVia(forwarder.port), REDIS_URL: REDIS_URL! });
    const { key } = await seeder.key(SERVICE, null);
    expect((await call(instance, key, target.url)).status).toBe(200);
    expect((await getJson(instance, '/v1/ready')).status).toBe(200);

    await forwarder.close();
    const refused = await call(instance, key, target.url);
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body)).toEqual(STORE_DOWN);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.ms).toBeLessThan(3000);
    const ready = await getJson(instance, '/v1/ready');
    expect(ready.status).toBe(503);
    expect(ready.json).toMatchObject({ status: 'not ready', checks: { store: expect.stringMatching(/^failing: /) } });
    expect((await getJson(instance, '/v1/health')).status).toBe(200);

    await forwarder.open();
    expect(await eventually(async () => (await call(instance, key, target.url)).status === 200, 10_000)).toBe(true);
    expect((await getJson(instance, '/v1/ready')).status).toBe(200);
  });

  it('PostgreSQL hanging without an answer: 503 within the store timeouts, never a hung request; then recovery', async () => {
    const forwarder = await TcpForwarder.create(pgTarget);
    cleanups.push(() => forwarder.close());
    const instance = await start({ DATABASE_URL: db.urlVia(forwarder.port), REDIS_URL: REDIS_URL! });
    const { key } = await seeder.key(SERVICE, null);
    expect((await call(instance, key, target.url)).status).toBe(200);

    forwarder.stall();
    // Concurrent: one may get the pooled (now silent) connection (5 s query timeout), the others
    // open new connections that never complete their handshake (3 s connect timeout).
    const stalled = await Promise.all([1, 2, 3].map(() => call(instance, key, target.url)));
    for (const answer of stalled) {
      expect(answer.status).toBe(503);
      expect(answer.ms).toBeLessThan(7000);
    }
    const readyStarted = Date.now();
    expect((await getJson(instance, '/v1/ready')).status).toBe(503);
    expect(Date.now() - readyStarted).toBeLessThan(3000);
    expect((await getJson(instance, '/v1/health')).status).toBe(200);

    forwarder.resume();
    expect(await eventually(async () => (await call(instance, key, target.url)).status === 200, 15_000)).toBe(true);
  });

  it('an instance started while PostgreSQL is unreachable comes up, answers 503, then migrates and serves', async () => {
    const empty = await freshDatabase(DATABASE_URL!);
    cleanups.push(() => empty.drop());
    const forwarder = await TcpForwarder.create(pgTarget, false);
    cleanups.push(() => forwarder.close());
    const instance = await start({ DATABASE_URL: empty.urlVia(forwarder.port), REDIS_URL: REDIS_URL! });
    await instance.waitFor(/database unreachable at start/, 3000);
    expect((await getJson(instance, '/v1/health')).status).toBe(200);
    const ready = await getJson(instance, '/v1/ready');
    expect(ready.status).toBe(503);
    expect(ready.json).toMatchObject({ checks: { store: expect.stringMatching(/not reachable or not migrated yet/) } });
    // A well-formed key passes the checksum and needs the store: 503, not 401.
    const early = await call(instance, generateKey(SERVICE), target.url);
    expect(early.status).toBe(503);
    expect(JSON.parse(early.body)).toEqual(STORE_DOWN);

    await sleep(1000);
    await forwarder.open();
    expect(await eventually(async () => (await getJson(instance, '/v1/ready')).status === 200, 15_000)).toBe(true);
    const emptySeeder = await Seeder.open(empty.url);
    try {
      const { key } = await emptySeeder.key(SERVICE, null);
      expect((await call(instance, key, target.url)).status).toBe(200);
    } finally {
      await emptySeeder.close();
    }
  });

  for (const service of ['metadata', 'render'] as const) {
    const extra = service === 'render' ? '; no Chromium process outlives it' : '';
    it(`${service}: SIGTERM under load drains in-flight requests and loses no usage count${extra}`, async () => {
      const instance = await start({ DATABASE_URL: db.url, REDIS_URL: REDIS_URL!, RENDER_CONCURRENCY: '2' }, service);
      const { key, accountId } = await seeder.key(service, 1_000_000);
      const answers: Answer[] = [];
      let failures = 0;
      const worker = async () => {
        for (;;) {
          try {
            answers.push(await call(instance, key, target.url));
          } catch {
            failures++;
            return;
          }
        }
      };
      const workers = Array.from({ length: service === 'render' ? 4 : 8 }, worker);
      await sleep(1500);
      const children = descendants(instance.pid);
      if (service === 'render') expect(children.length).toBeGreaterThan(0);
      const stopAt = Date.now();
      const code = await instance.stop('SIGTERM');
      await Promise.all(workers);
      expect(code).toBe(0);
      expect(failures).toBe(workers.length);
      // Drained, not cut at the end of the grace period (35 s here) by keep-alive connections held open.
      expect(Date.now() - stopAt).toBeLessThan(10_000);
      // Chromium and its helpers went with the instance: none of its processes outlives it.
      expect(children.filter(alive)).toEqual([]);

      // Authenticated answers carry the rate-limit headers; 503s sent while closing do not and are not usage.
      const authenticated = answers.filter((a) => a.headers.has('ratelimit'));
      expect(authenticated.length).toBeGreaterThan(5);
      expect(new Set(authenticated.map((a) => a.status))).toEqual(new Set([200]));
      const rows = await db.query<{ total: string }>(
        'select coalesce(sum(count), 0) as total from usage_daily where account_id = $1',
        [accountId],
      );
      expect(Number(rows[0]!.total)).toBe(authenticated.length);
    });
  }
});
