import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasNginx, Nginx } from '../deploy/nginx.js';
import { DATABASE_URL, REDIS_URL } from '../helpers/backends.js';
import { type FreshDatabase, freePort, freshDatabase } from './backends.js';
import { Seeder, startTargetPage } from './cluster.js';
import { Instance } from './instances.js';

if (!hasNginx) console.warn('\n*** nginx is not installed: the deploy/nginx.conf suite is SKIPPED ***\n');

describe.skipIf(!DATABASE_URL || !REDIS_URL || !hasNginx)('deploy/nginx.conf in front of two metadata instances', () => {
  let db: FreshDatabase;
  let target: Awaited<ReturnType<typeof startTargetPage>>;
  let instances: Instance[] = [];
  let nginx: Nginx | undefined;
  let lb: string;

  beforeAll(async () => {
    db = await freshDatabase(DATABASE_URL!);
    target = await startTargetPage();
    const env = { DATABASE_URL: db.url, REDIS_URL: REDIS_URL!, EGRESS_ALLOW: '127.0.0.1/32', LOG_LEVEL: 'warn' };
    instances = await Promise.all([Instance.start('metadata', env), Instance.start('metadata', env)]);
    // Render and dashboard upstreams point at unused ports: only the metadata server block is exercised.
    const spare = await Promise.all([freePort(), freePort(), freePort()]);
    nginx = await Nginx.start({
      upstreams: {
        metadata: instances.map((i) => new URL(i.url).host),
        render: [`127.0.0.1:${spare[0]}`, `127.0.0.1:${spare[1]}`],
        dashboard: [`127.0.0.1:${spare[2]}`],
      },
    });
    lb = nginx.url('metadata');
  });
  afterAll(async () => {
    await nginx?.stop();
    await Promise.all(instances.map((i) => i.stop()));
    await target?.close();
    await db?.drop();
  });

  it('spreads requests over both instances, keeps the shared limit, and hides /metrics and /v1/ready', async () => {
    const seeder = await Seeder.open(db.url);
    const { key } = await seeder.key('metadata', 30);
    await seeder.close();
    const url = `${lb}/v1/fetch?url=${encodeURIComponent(target.url)}`;
    // Concurrent batches, so least_conn has two busy upstreams to choose between.
    const answers = await Promise.all(Array.from({ length: 36 }, () => fetch(url, { headers: { 'x-api-key': key } })));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(30);
    expect(statuses.filter((s) => s === 429)).toHaveLength(6);
    expect((await answers.find((a) => a.status === 200)!.json()).title).toBe('Scale target');

    const served = await Promise.all(
      instances.map(async (i) => {
        const text = await (await fetch(`${i.url}/metrics`)).text();
        return Number(
          /pageworks_http_requests_total\{route="\/v1\/fetch",method="GET",status="200"[^}]*\} (\d+)/.exec(text)?.[1] ?? 0,
        );
      }),
    );
    expect(served[0]! + served[1]!).toBe(30);
    expect(Math.min(...served)).toBeGreaterThan(0);

    expect((await fetch(`${lb}/metrics`)).status).toBe(404);
    expect((await fetch(`${lb}/v1/ready`)).status).toBe(404);
  });
});
