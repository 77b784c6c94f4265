/**
 * Which address a dashboard request counts as (TRUST_PROXY), and log-in throttles that hold across
 * dashboard instances and restarts when they share Redis.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type CoreDeps, closeCore, connectRedis, createCore } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { loadConfig } from '../../src/config.js';
import { REDIS_URL, uniqueName } from '../helpers/backends.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { FormClient, PASSWORD, signUp } from './client.js';

/** Twenty-odd password checks, each a deliberately slow hash: minutes on a loaded machine. */
const SLOW_MS = 300_000;

/** One failed log-in for a fresh email (so only the per-IP count can decide); returns the status. */
let attempt = 0;
async function failLogIn(client: FormClient): Promise<number> {
  attempt += 1;
  const res = await client.submit('/login', '/login', { email: `nobody${attempt}@example.com`, password: 'wrong password' });
  return res.statusCode;
}

describe('the client address behind a proxy (TRUST_PROXY)', () => {
  let core: CoreDeps | undefined;
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    if (core) await closeTestCore(core);
    app = undefined;
    core = undefined;
  });

  it(
    'unset: X-Forwarded-For is ignored, so a client cannot dodge the per-IP throttle with it',
    async () => {
      core = await createTestCore();
      app = await buildDashboardApp(core);
      for (let i = 0; i < 20; i++) {
        const client = new FormClient(app, '10.0.0.9', { 'x-forwarded-for': `203.0.113.${i}` });
        expect(await failLogIn(client)).toBe(401);
      }
      const forged = new FormClient(app, '10.0.0.9', { 'x-forwarded-for': '198.51.100.7' });
      expect(await failLogIn(forged)).toBe(429);
    },
    SLOW_MS,
  );

  it(
    'set: the proxy’s X-Forwarded-For is the client: throttles, sessions and the activity log use it',
    async () => {
      core = await createTestCore({ TRUST_PROXY: '10.0.0.1' });
      app = await buildDashboardApp(core);
      const a = new FormClient(app, '10.0.0.1', { 'x-forwarded-for': '203.0.113.5' });
      for (let i = 0; i < 20; i++) expect(await failLogIn(a)).toBe(401);
      expect(await failLogIn(a)).toBe(429);
      // Same proxy, another client: not throttled, and recorded under its own address.
      const b = await signUp(app, 'b@example.com', '10.0.0.1');
      const viaProxy = new FormClient(app, '10.0.0.1', { 'x-forwarded-for': '198.51.100.7, 203.0.113.9' });
      expect((await viaProxy.submit('/login', '/login', { email: 'b@example.com', password: PASSWORD })).statusCode).toBe(303);
      expect((await viaProxy.get('/account')).body).toContain('203.0.113.9');
      expect((await b.get('/activity')).body).toContain('203.0.113.9');
      // A client that is not the proxy cannot claim an address: its own is counted.
      for (let i = 0; i < 20; i++) {
        expect(await failLogIn(new FormClient(app, '10.0.0.2', { 'x-forwarded-for': `192.0.2.${i}` }))).toBe(401);
      }
      expect(await failLogIn(new FormClient(app, '10.0.0.2', { 'x-forwarded-for': '192.0.2.99' }))).toBe(429);
    },
    SLOW_MS,
  );

  it('set: X-Forwarded-Proto https from the proxy makes the cookies Secure', async () => {
    core = await createTestCore({ TRUST_PROXY: '10.0.0.1' });
    app = await buildDashboardApp(core);
    const https = await app.inject({ url: '/login', remoteAddress: '10.0.0.1', headers: { 'x-forwarded-proto': 'https' } });
    expect(String(https.headers['set-cookie'])).toMatch(/; Secure/);
    const http = await app.inject({ url: '/login', remoteAddress: '10.0.0.1' });
    expect(String(http.headers['set-cookie'])).not.toMatch(/Secure/);
    const forged = await app.inject({ url: '/login', remoteAddress: '10.0.0.2', headers: { 'x-forwarded-proto': 'https' } });
    expect(String(forged.headers['set-cookie'])).not.toMatch(/Secure/);
  });
});

describe.skipIf(!REDIS_URL)('log-in throttles shared through Redis', () => {
  const prefix = `${uniqueName('pw_test')}:`;
  const dirs: string[] = [];
  const running: Array<{ core: CoreDeps; app: FastifyInstance }> = [];

  /** A dashboard instance on its own embedded store, sharing Redis (and this test's key prefix). */
  async function instance(): Promise<{ core: CoreDeps; app: FastifyInstance }> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-throttle-'));
    dirs.push(dir);
    const config = loadConfig({ PAGEWORKS_DATA_DIR: dir, LOG_LEVEL: 'silent', REDIS_URL: REDIS_URL! });
    const core = await createCore(config, pino({ level: 'silent' }), { redisPrefix: prefix });
    const app = await buildDashboardApp(core);
    running.push({ core, app });
    return { core, app };
  }

  async function stop(i: { core: CoreDeps; app: FastifyInstance }): Promise<void> {
    running.splice(running.indexOf(i), 1);
    await i.app.close();
    await closeCore(i.core);
  }

  afterAll(async () => {
    for (const i of [...running]) await stop(i);
    const redis = await connectRedis(REDIS_URL!);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it(
    '20 failed log-ins spread over two instances throttle the 21st on either, and a restarted instance remembers',
    async () => {
      const one = await instance();
      const two = await instance();
      const ip = '192.0.2.44';
      for (let i = 0; i < 20; i++) {
        const on = i % 2 === 0 ? one : two;
        expect(await failLogIn(new FormClient(on.app, ip)), `attempt ${i + 1}`).toBe(401);
      }
      expect(await failLogIn(new FormClient(one.app, ip))).toBe(429);
      expect(await failLogIn(new FormClient(two.app, ip))).toBe(429);
      // Another address is not affected.
      expect(await failLogIn(new FormClient(two.app, '192.0.2.45'))).toBe(401);

      await stop(one);
      const restarted = await instance();
      const res = await new FormClient(restarted.app, ip).submit('/login', '/login', {
        email: 'someone@example.com',
        password: 'wrong password',
      });
      expect(res.statusCode).toBe(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    },
    SLOW_MS,
  );
});
