import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_URL, REDIS_URL } from '../helpers/backends.js';
import { type FreshDatabase, freePort, freshDatabase, sleep } from './backends.js';
import { Seeder, startTargetPage } from './cluster.js';
import { Instance } from './instances.js';

const NGINX_CONF = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../deploy/nginx.conf');
const hasNginx = spawnSync('nginx', ['-v']).status === 0;
if (!hasNginx) console.warn('\n*** nginx is not installed: the deploy/nginx.conf suite is SKIPPED ***\n');

/**
 * deploy/nginx.conf as compose runs it, with the container names and public ports replaced by
 * loopback ports, so the real configuration is exercised in front of real instances.
 */
function loopbackConfig(ports: { metadata: number[]; lb: number; spare: number[] }): string {
  const [render1, render2, renderListen, dashboard, dashboardListen] = ports.spare;
  const conf = fs.readFileSync(NGINX_CONF, 'utf8');
  return conf
    .replace('metadata-1:3002', `127.0.0.1:${ports.metadata[0]}`)
    .replace('metadata-2:3002', `127.0.0.1:${ports.metadata[1]}`)
    .replace('render-1:3001', `127.0.0.1:${render1}`)
    .replace('render-2:3001', `127.0.0.1:${render2}`)
    .replace('dashboard:3000', `127.0.0.1:${dashboard}`)
    .replace('listen 8002;', `listen 127.0.0.1:${ports.lb};`)
    .replace('listen 8001;', `listen 127.0.0.1:${renderListen};`)
    .replace('listen 8000;', `listen 127.0.0.1:${dashboardListen};`)
    .replace('access_log /dev/stdout main;', 'access_log off;');
}

describe.skipIf(!DATABASE_URL || !REDIS_URL || !hasNginx)('deploy/nginx.conf in front of two metadata instances', () => {
  let db: FreshDatabase;
  let target: Awaited<ReturnType<typeof startTargetPage>>;
  let instances: Instance[] = [];
  let nginx: ChildProcess | undefined;
  let dir: string;
  let lb: string;

  beforeAll(async () => {
    db = await freshDatabase(DATABASE_URL!);
    target = await startTargetPage();
    const env = { DATABASE_URL: db.url, REDIS_URL: REDIS_URL!, EGRESS_ALLOW: '127.0.0.1/32', LOG_LEVEL: 'warn' };
    instances = await Promise.all([Instance.start('metadata', env), Instance.start('metadata', env)]);
    const port = (i: Instance) => Number(new URL(i.url).port);
    // Render and dashboard upstreams point at unused ports: only the metadata server block is exercised.
    const spare = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
    const lbPort = await freePort();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-nginx-'));
    fs.writeFileSync(path.join(dir, 'nginx.conf'), loopbackConfig({ metadata: instances.map(port), lb: lbPort, spare }));
    nginx = spawn(
      'nginx',
      ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-g', `daemon off; pid ${dir}/nginx.pid; error_log stderr;`],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let errors = '';
    nginx.stderr!.on('data', (d) => (errors += d));
    lb = `http://127.0.0.1:${lbPort}`;
    const until = Date.now() + 10_000;
    while (
      !(await fetch(`${lb}/v1/health`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (nginx.exitCode !== null || Date.now() > until) throw new Error(`nginx did not start: ${errors}`);
      await sleep(100);
    }
  });
  afterAll(async () => {
    if (nginx && nginx.exitCode === null) {
      const exited = new Promise((resolve) => nginx!.once('exit', resolve));
      nginx.kill('SIGTERM');
      await exited;
    }
    await Promise.all(instances.map((i) => i.stop()));
    await target?.close();
    await db?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
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
