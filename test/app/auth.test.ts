import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance, FastifyReply, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crc32Hex, generateKey } from '../../src/accounts/key-format.js';
import { type CoreDeps, closeCore, createCore } from '../../src/app/core.js';
import { loggerOptions } from '../../src/app/logger.js';
import { createServiceApp } from '../../src/app/service-app.js';
import { loadConfig } from '../../src/config.js';
import { utcDay } from '../../src/ids.js';
import { createKey } from '../helpers/core.js';
import { PAGEWORKS } from '../helpers/pageworks-command.js';

/** A service app with one authenticated no-op route, as a service would register it. */
async function buildApp(core: CoreDeps, service: 'render' | 'metadata'): Promise<FastifyInstance> {
  const sendError = (reply: FastifyReply, status: number, code: string, message: string) =>
    service === 'render' ? reply.code(status).send({ error: { code, message } }) : reply.code(status).send({ detail: message });
  const app = await createServiceApp({
    service,
    core,
    requestIdHeader: service === 'render' ? 'X-Render-ID' : 'X-Request-ID',
    sendError,
  });
  app.get('/noop', { onRequest: app.authenticate }, async (request) => ({ account: request.auth?.accountId }));
  return app;
}

describe('authentication and rate limits', () => {
  const logLines: string[] = [];
  let core: CoreDeps;
  let render: FastifyInstance;
  let metadata: FastifyInstance;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-auth-'));
    const config = loadConfig({ PAGEWORKS_DATA_DIR: dataDir, RENDER_RATE_LIMIT: '5', LOG_LEVEL: 'info' });
    const sink = new Writable({
      write(chunk, _enc, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    core = await createCore(config, pino(loggerOptions(config), sink));
    render = await buildApp(core, 'render');
    metadata = await buildApp(core, 'metadata');
  });
  afterAll(async () => {
    await render.close();
    await metadata.close();
    await closeCore(core);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const bearer = (value: string) => ({ authorization: value });

  it('accepts a valid render key with any case of the Bearer scheme', async () => {
    const { key, accountId } = await createKey(core, 'render');
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      const res = await render.inject({ url: '/noop', headers: bearer(`${scheme} ${key}`) });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ account: accountId });
      expect(res.headers['x-render-id']).toMatch(/^rnd_[0-9a-f]{24}$/);
      expect(res.headers['ratelimit-policy']).toBe('"render";q=5;w=60');
      expect(res.headers.ratelimit).toMatch(/^"render";r=[0-4];t=\d+$/);
    }
  });

  const valid = generateKey('render');
  const withChecksum = (body: string) => body + crc32Hex(body);
  const REALM = 'Bearer realm="pageworks"';
  const INVALID = 'Bearer realm="pageworks", error="invalid_token"';
  it.each([
    // No Bearer credentials at all: the challenge alone (RFC 6750 §3: no error code).
    ['no header', undefined, 'missing API key: send "Authorization: Bearer <key>"', REALM],
    ['Basic scheme', `Basic ${valid}`, 'malformed API key', REALM],
    ['key without scheme', valid, 'malformed API key', REALM],
    // A Bearer key that is refused: invalid_token.
    ['Bearer without key', 'Bearer', 'malformed API key', INVALID],
    ['Bearer and a space', 'Bearer ', 'malformed API key', INVALID],
    ['two spaces', `Bearer  ${valid}`, 'malformed API key', INVALID],
    ['wrong prefix', `Bearer ${withChecksum('pwx_live_0123456789abcdef01234567')}`, 'malformed API key', INVALID],
    ['uppercase hex', `Bearer ${valid.slice(0, 9)}${valid.slice(9).toUpperCase()}`, 'malformed API key', INVALID],
    ['wrong length', `Bearer ${valid}0`, 'malformed API key', INVALID],
    ['bad checksum', `bearer ${valid.slice(0, -1)}${valid.endsWith('0') ? '1' : '0'}`, 'malformed API key', INVALID],
    ['well-formed but unknown', `Bearer ${valid}`, 'unknown API key', INVALID],
    [
      'a metadata key',
      `Bearer ${withChecksum('pwm_live_0123456789abcdef01234567')}`,
      'not a render key (render keys start with pwr_live_)',
      INVALID,
    ],
  ])('refuses %s with 401 UNAUTHORIZED and a Bearer challenge', async (_name, header, message, challenge) => {
    const res = await render.inject({ url: '/noop', headers: header === undefined ? {} : bearer(header) });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: { code: 'UNAUTHORIZED', message } });
    expect(res.headers['www-authenticate']).toBe(challenge);
    expect(res.headers['x-render-id']).toMatch(/^rnd_/);
    expect(res.headers['ratelimit-policy']).toBeUndefined();
  });

  it('never accepts a key on the other service, even a real one', async () => {
    const { key: renderKey } = await createKey(core, 'render');
    const { key: metadataKey } = await createKey(core, 'metadata');
    const onMetadata = await metadata.inject({ url: '/noop', headers: { 'x-api-key': renderKey } });
    expect(onMetadata.statusCode).toBe(401);
    expect(onMetadata.json()).toEqual({ detail: 'not a metadata key (metadata keys start with pwm_live_)' });
    const onRender = await render.inject({ url: '/noop', headers: bearer(`Bearer ${metadataKey}`) });
    expect(onRender.statusCode).toBe(401);
    const ok = await metadata.inject({ url: '/noop', headers: { 'x-api-key': metadataKey } });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['x-request-id']).toMatch(/^req_/);
  });

  it('refuses a missing X-API-Key on metadata with a detail body', async () => {
    const res = await metadata.inject({ url: '/noop' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ detail: 'missing API key: send the X-API-Key header' });
    // No registered HTTP authentication scheme names a key in a header of its own (docs/api.md).
    expect(res.headers['www-authenticate']).toBeUndefined();
  });

  it('refuses a revoked key on the very next request', async () => {
    const { key, accountId } = await createKey(core, 'render');
    expect((await render.inject({ url: '/noop', headers: bearer(`Bearer ${key}`) })).statusCode).toBe(200);
    const [record] = await core.keys.list(accountId, 'render');
    expect(await core.keys.revoke(record!.id, accountId)).toBe(true);
    const res = await render.inject({ url: '/noop', headers: bearer(`Bearer ${key}`) });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: 'API key revoked' } });
    expect(res.headers['www-authenticate']).toBe('Bearer realm="pageworks", error="invalid_token"');
  });

  it('sees a revocation and a limit change made by another process (the CLI) on the very next request', async () => {
    // Verified keys are cached while the SQLite file is unchanged: a commit by another process must end that.
    const { key } = await createKey(core, 'metadata', 'other-process@example.com');
    const headers = { 'x-api-key': key };
    for (let i = 0; i < 3; i++)
      expect((await metadata.inject({ url: '/noop', headers })).headers.ratelimit).toMatch(/^"metadata";r=\d+;t=\d+$/);

    const cli = (args: string[]) =>
      spawnSync(process.execPath, [...PAGEWORKS, ...args], {
        cwd: path.resolve(import.meta.dirname, '../..'),
        env: { ...process.env, PAGEWORKS_DATA_DIR: dataDir, LOG_LEVEL: 'warn', DATABASE_URL: '', REDIS_URL: '' },
        encoding: 'utf8',
        timeout: 60_000,
      });
    const limited = cli([
      'accounts',
      'set-limit',
      '--email',
      'other-process@example.com',
      '--service',
      'metadata',
      '--limit',
      '100',
    ]);
    expect(limited.status).toBe(0);
    const afterLimit = await metadata.inject({ url: '/noop', headers });
    expect(afterLimit.statusCode).toBe(200);
    expect(afterLimit.headers['ratelimit-policy']).toBe('"metadata";q=100;w=60');

    const revoked = cli(['keys', 'revoke', '--key', key]);
    expect(revoked.status).toBe(0);
    const res = await metadata.inject({ url: '/noop', headers });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ detail: 'API key revoked' });
  });

  it('limits per account across its keys, with Retry-After on 429, and counts usage by outcome', async () => {
    const first = await createKey(core, 'render', 'limited@example.com');
    const second = await createKey(core, 'render', 'limited@example.com');
    const statuses: number[] = [];
    let last: LightMyRequestResponse | undefined;
    for (let i = 0; i < 7; i++) {
      const key = i % 2 === 0 ? first.key : second.key;
      last = await render.inject({ url: '/noop', headers: bearer(`Bearer ${key}`) });
      statuses.push(last.statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(last!.json()).toEqual({
      error: {
        code: 'RATE_LIMITED',
        message: expect.stringMatching(/^rate limit of 5 render requests per minute exceeded; retry in \d+ s$/),
      },
    });
    expect(Number(last!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(last!.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(last!.headers.ratelimit).toMatch(/^"render";r=0;t=\d+$/);

    await core.usage.flush();
    const usage = await core.store.usageSince(first.accountId, utcDay(Date.now()));
    const byOutcome = Object.fromEntries(usage.map((u) => [u.outcome, u.count]));
    expect(byOutcome).toEqual({ ok: 5, rate_limited: 2 });
  });

  it('honours a per-account limit override', async () => {
    const { key, accountId } = await createKey(core, 'render');
    await core.accounts.setLimit(accountId, 'render', 1);
    expect((await render.inject({ url: '/noop', headers: bearer(`Bearer ${key}`) })).statusCode).toBe(200);
    const res = await render.inject({ url: '/noop', headers: bearer(`Bearer ${key}`) });
    expect(res.statusCode).toBe(429);
    expect(res.headers['ratelimit-policy']).toBe('"render";q=1;w=60');
  });

  it('records last use in a batch, moving forward only', async () => {
    const { key, accountId } = await createKey(core, 'metadata');
    expect((await core.keys.list(accountId))[0]!.lastUsedAt).toBeNull();
    const before = Date.now();
    await metadata.inject({ url: '/noop', headers: { 'x-api-key': key } });
    expect((await core.keys.list(accountId))[0]!.lastUsedAt).toBeNull();
    await core.lastUsed.flush();
    expect((await core.keys.list(accountId))[0]!.lastUsedAt).toBeGreaterThanOrEqual(before);
  });

  it('keeps full keys out of the logs and the database file', async () => {
    const { key } = await createKey(core, 'render');
    await render.inject({ url: '/noop', headers: bearer(`Bearer ${key}`) });
    await render.inject({ url: '/noop', headers: bearer(`Bearer ${key}x`) });
    await core.lastUsed.flush();
    await core.usage.flush();
    const logs = logLines.join('');
    expect(logs).toContain('request completed');
    expect(logs).toContain('"accountId"');
    expect(logs).not.toContain(key);
    expect(logs).not.toContain(key.slice(9));
    const files = fs.readdirSync(dataDir).map((f) => fs.readFileSync(path.join(dataDir, f)).toString('latin1'));
    expect(files.join('')).toContain(key.slice(0, 13));
    expect(files.join('')).not.toContain(key.slice(9));
  });

  it('answers health without a key', async () => {
    const res = await metadata.inject({ url: '/v1/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'healthy', version: expect.stringMatching(/^\d+\.\d+\.\d+$/) });
  });
});
