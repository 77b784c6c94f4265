/**
 * A reset token is a password for 30 minutes, an API key for longer: however a URL spells the
 * parameter that carries one, on any route of any service, the request log never shows it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/accounts/key-format.js';
import { type CoreDeps, closeCore, createCore } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { createLogger, redactUrl } from '../../src/app/logger.js';
import { buildMetadataApp } from '../../src/app/metadata-app.js';
import { loadConfig } from '../../src/config.js';

const lines: string[] = [];
let dir: string;
let core: CoreDeps;
let dashboard: FastifyInstance;
let metadata: FastifyInstance;
let token: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-log-redaction-'));
  // A bare pino logger, not the process logger: the apps must redact on their own.
  core = await createCore(
    loadConfig({ PAGEWORKS_DATA_DIR: dir, LOG_LEVEL: 'info' }),
    pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }),
  );
  dashboard = await buildDashboardApp(core);
  metadata = await buildMetadataApp(core);
  const account = await core.accounts.create('logged@example.com');
  token = await core.resets.issue(account.id);
});
afterAll(async () => {
  await dashboard?.close();
  await metadata?.close();
  if (core) await closeCore(core);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the request log', () => {
  it('never carries a reset token, however the reset page is asked for', async () => {
    const asked: Array<[string, number | undefined]> = [
      [`/reset-password?token=${token}`, 200],
      [`/reset-password?%74oken=${token}`, 200],
      [`/reset-password?%54%4fKEN=${token}`, 400],
      [`/reset-password?token=${token}&token=${token}`, 400],
      [`/reset-password?lang=en&TOKEN=${token}&Token=${token}`, 400],
      [`/reset-password?x=1;token=${token}`, 400],
      [`/reset-password?token=${encodeURIComponent(token).replace(/-/g, '%2D')}`, 200],
      // Not the reset route: 404s log their URL too.
      [`/reset-password/?token=${token}`, 404],
      [`/Reset-Password?token=${token}`, 404],
      [`/reset-password/x?%74oken=${token}`, 404],
      [`/nothing-here?token=${token}&token=${token}`, 404],
      [`/reset%2Dpassword?tok%65n=${token}`, undefined],
    ];
    const before = lines.length;
    for (const [url, status] of asked) {
      const res = await dashboard.inject({ url });
      if (status !== undefined) expect(res.statusCode, url).toBe(status);
    }
    const logged = lines.slice(before).join('');
    // Every request was logged, with its path.
    expect(logged).toContain('"url":"/reset-password?token=[redacted]"');
    expect(logged).toContain('"url":"/reset-password?%74oken=[redacted]"');
    expect(logged).toContain('"url":"/Reset-Password?token=[redacted]"');
    expect(logged).toContain('"url":"/nothing-here?token=[redacted]&token=[redacted]"');
    expect(logged).not.toContain(token);
    expect(logged).not.toContain(token.slice(0, 20));
  });

  it('never carries an API key, a password or a secret in a query, on the API services too', async () => {
    const key = generateKey('metadata');
    const asked = [
      `/v1/fetch?url=https%3A%2F%2Fexample.com%2F&api_key=${key}`,
      `/v1/fetch?url=https%3A%2F%2Fexample.com%2F&API%5FKEY=${key}`,
      `/v1/fetch?url=https%3A%2F%2Fexample.com%2F%3Fk%3D${key}`,
      `/v1/fetch?password=hunter2hunter2&client_secret=s3cr3t-value`,
      // The page's own address, with its credentials and a token of its own.
      '/v1/fetch?url=https%3A%2F%2Fu%3An3sted-pass%40example.com%2F%3Ftoken%3Dn3sted-token',
      `/v1/nothing?secret=s3cr3t-value&key=${key}`,
      `/v1/${key}`,
    ];
    const before = lines.length;
    for (const url of asked) await metadata.inject({ url });
    for (const url of [`/keys?x=${key}`, `/login?password=hunter2hunter2`, `/login?webhook=whsec_c2VjcmV0c2VjcmV0`]) {
      await dashboard.inject({ url });
    }
    const logged = lines.slice(before).join('');
    expect(logged).toContain('"url":"/v1/fetch?url=https%3A%2F%2Fexample.com%2F&api_key=[redacted]"');
    expect(logged).toContain('"url":"/v1/fetch?url=https%3A%2F%2F[redacted]%40example.com%2F%3Ftoken%3D[redacted]"');
    for (const secret of [
      key,
      key.slice(9),
      'hunter2hunter2',
      's3cr3t-value',
      'whsec_c2VjcmV0c2VjcmV0',
      'n3sted-pass',
      'n3sted-token',
    ]) {
      expect(logged).not.toContain(secret);
    }
  });

  it('is redacted by the process logger too, JSON or pretty', () => {
    for (const format of ['json', 'pretty']) {
      const out: string[] = [];
      const sink = new Writable({
        write(chunk: Buffer, _enc: string, done: () => void) {
          out.push(chunk.toString());
          done();
        },
      });
      const log = createLogger(loadConfig({ LOG_FORMAT: format, LOG_LEVEL: 'info' }), sink);
      log.info({ req: { method: 'GET', url: `/reset-password?%74oken=${token}`, headers: {} } }, 'incoming request');
      expect(out.join('')).toContain('[redacted]');
      expect(out.join('')).not.toContain(token);
    }
  });
});

describe('redactUrl', () => {
  it('keeps what is not a secret and the shape of the URL', () => {
    expect(redactUrl('/v1/fetch?url=https%3A%2F%2Fexample.com%2F')).toBe('/v1/fetch?url=https%3A%2F%2Fexample.com%2F');
    expect(redactUrl('/keys')).toBe('/keys');
    expect(redactUrl('/usage?days=30&flag')).toBe('/usage?days=30&flag');
    expect(redactUrl('/a?Token=x&token=y&b=2')).toBe('/a?Token=[redacted]&token=[redacted]&b=2');
    expect(redactUrl('/a?%zz=1&tok%65n=%zz')).toBe('/a?%zz=1&tok%65n=[redacted]');
  });

  it("hides the secrets of an address given as a parameter's value, encoded or not", () => {
    expect(redactUrl('/v1/fetch?url=https%3A%2F%2Fuser%3As3cret%40example.com%2Fshare%3Ftoken%3Dabc%26x%3D1')).toBe(
      '/v1/fetch?url=https%3A%2F%2F[redacted]%40example.com%2Fshare%3Ftoken%3D[redacted]%26x%3D1',
    );
    expect(redactUrl('/v1/fetch?url=http://user:s3cret@example.com/')).toBe('/v1/fetch?url=http://[redacted]@example.com/');
    expect(redactUrl('/go?next=https%253A%252F%252Fexample.com%252F%253Fpassword%253Dhunter2', { mark: '…' })).toBe(
      '/go?next=https%3A%2F%2Fexample.com%2F%3Fpassword%3D…',
    );
    // An address in an address in the request: `next`'s own password goes too.
    expect(
      redactUrl('/v1/fetch?url=https%3A%2F%2Fa.example%2F%3Fnext%3Dhttps%253A%252F%252Fu%253Ap4ss%2540b.example%252F'),
    ).not.toContain('p4ss');
    // Thousands of levels (13.5 kB) are read two deep, not one pass per level: this overflowed the stack.
    const deep = `/v1/fetch?${'a=x:?'.repeat(2700)}b=1`;
    expect(redactUrl(deep)).toBe(deep);
    // Nothing to hide: the parameter keeps its spelling, lower-case escapes included.
    expect(redactUrl('/v1/fetch?url=https%3a%2f%2fexample.com%2f%3fq%3d1')).toBe(
      '/v1/fetch?url=https%3a%2f%2fexample.com%2f%3fq%3d1',
    );
    expect(redactUrl('/v1/fetch?url=https%3A%2F%2Fexample.com%2F%3Fpage%3D2')).toBe(
      '/v1/fetch?url=https%3A%2F%2Fexample.com%2F%3Fpage%3D2',
    );
  });
});
