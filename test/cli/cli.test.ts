import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AccountService } from '../../src/accounts/accounts.js';
import { crc32Hex } from '../../src/accounts/key-format.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { PAGEWORKS } from '../helpers/pageworks-command.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-cli-'));

/** The environment of a user's shell on the embedded store: no DATABASE_URL/REDIS_URL from CI. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PAGEWORKS_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  return { ...env, ...extra };
}

/** Runs `pageworks …` (pageworks-command.ts says which build). */
function pageworks(args: string[], extra: Record<string, string> = {}) {
  const res = spawnSync(process.execPath, [...PAGEWORKS, ...args], {
    cwd: ROOT,
    env: cleanEnv(extra),
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}

afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('pageworks CLI', () => {
  it('creates an account and prints a checksummed metadata key alone on stdout', () => {
    const created = pageworks(['accounts', 'create', '--email', 'a@example.com']);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^created account a@example\.com \(acc_[0-9a-f]{32}\)\n$/);

    const key = pageworks(['keys', 'create', '--email', 'A@Example.com', '--service', 'metadata', '--name', 'ci']);
    expect(key.code).toBe(0);
    expect(key.stdout).toMatch(/^pwm_live_[0-9a-f]{32}\n$/);
    const full = key.stdout.trim();
    expect(full.slice(-8)).toBe(crc32Hex(full.slice(0, -8)));

    const list = pageworks(['keys', 'list', '--email', 'a@example.com', '--json']);
    expect(list.code).toBe(0);
    const keys = JSON.parse(list.stdout);
    expect(keys).toHaveLength(1);
    // The API's shape: snake_case names and RFC 3339 times, as every JSON answer of the services.
    expect(keys[0]).toEqual({
      id: expect.stringMatching(/^key_/),
      display_prefix: full.slice(0, 13),
      service: 'metadata',
      name: 'ci',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      last_used_at: null,
      revoked_at: null,
    });
    expect(list.stdout).not.toContain(full.slice(13));
  });

  it('revokes a key by display prefix and refuses an unknown one', () => {
    const key = pageworks(['keys', 'create', '--email', 'a@example.com', '--service', 'render']).stdout.trim();
    const revoked = pageworks(['keys', 'revoke', '--key', key.slice(0, 13)]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toBe(`revoked ${key.slice(0, 13)}… (render)\n`);
    const again = pageworks(['keys', 'revoke', '--key', key]);
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(`pageworks: no active key matches ${key}\n`);
    const text = pageworks(['keys', 'list', '--email', 'a@example.com']).stdout;
    expect(text).toMatch(new RegExp(`^${key.slice(0, 13)}…  render\\s+revoked `, 'm'));
  });

  it('revoke --email picks the account a display prefix belongs to, and refuses another account', () => {
    const key = pageworks(['keys', 'create', '--email', 'a@example.com', '--service', 'metadata']).stdout.trim();
    expect(pageworks(['accounts', 'create', '--email', 'other@example.com']).code).toBe(0);
    const other = pageworks(['keys', 'revoke', '--key', key.slice(0, 13), '--email', 'other@example.com']);
    expect(other.code).toBe(2);
    expect(other.stderr).toBe(`pageworks: no active key matches ${key.slice(0, 13)} for other@example.com\n`);
    const own = pageworks(['keys', 'revoke', '--key', key.slice(0, 13), '--email', 'a@example.com']);
    expect(own.code).toBe(0);
    expect(own.stdout).toBe(`revoked ${key.slice(0, 13)}… (metadata)\n`);
  });

  it('sets and clears a per-account limit', () => {
    const set = pageworks(['accounts', 'set-limit', '--email', 'a@example.com', '--service', 'render', '--limit', '20']);
    expect(set.code).toBe(0);
    expect(set.stdout).toBe('a@example.com: render limit set to 20 requests per minute\n');
    const bad = pageworks(['accounts', 'set-limit', '--email', 'a@example.com', '--service', 'render', '--limit', '-3']);
    expect(bad.code).toBe(2);
    const cleared = pageworks(['accounts', 'set-limit', '--email', 'a@example.com', '--service', 'render', '--limit', 'default']);
    expect(cleared.stdout).toBe('a@example.com: render limit reset to the default\n');
  });

  it('backs the embedded store up to a file that opens as a store with the same accounts', async () => {
    const to = path.join(dataDir, 'backup-copy.sqlite');
    const res = pageworks(['backup', '--to', to]);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe(`wrote ${to} (${fs.statSync(to).size} bytes), a copy of ${path.join(dataDir, 'pageworks.sqlite')}\n`);
    const copy = await openSqliteStore(dataDir, 'backup-copy.sqlite');
    try {
      expect((await new AccountService(copy).findByEmail('a@example.com'))?.email).toBe('a@example.com');
    } finally {
      await copy.close();
    }
    expect(pageworks(['backup', '--to', to]).code).toBe(2);
  });

  it("backs up a fresh checkout's store into folders that do not exist yet", () => {
    const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-cli-fresh-'));
    try {
      const to = path.join(fresh, 'backups', 'nightly', 'x.sqlite');
      const res = pageworks(['backup', '--to', to], { PAGEWORKS_DATA_DIR: path.join(fresh, 'data') });
      expect(res).toEqual({
        code: 0,
        stdout: `wrote ${to} (${fs.statSync(to).size} bytes), a copy of ${path.join(fresh, 'data', 'pageworks.sqlite')}\n`,
        stderr: '',
      });
    } finally {
      fs.rmSync(fresh, { recursive: true, force: true });
    }
  });

  it.each([
    [['accounts', 'create', '--email', 'A@EXAMPLE.COM'], 'pageworks: an account for A@EXAMPLE.COM exists already\n'],
    [['accounts', 'create', '--email', 'not-an-email'], 'pageworks: "not-an-email" is not an email address\n'],
    [
      ['accounts', 'create', '--email', 'b@example.com', '--password', 'short'],
      'pageworks: the password must have at least 12 characters\n',
    ],
    [
      ['keys', 'create', '--email', 'nobody@example.com', '--service', 'render'],
      `pageworks: no account for nobody@example.com in ${path.join(dataDir, 'pageworks.sqlite')} (PAGEWORKS_DATA_DIR)\n`,
    ],
    [['keys', 'create', '--email', 'a@example.com', '--service', 'pdf'], 'pageworks: --service must be render or metadata\n'],
    [['keys', 'create', '--service', 'render'], 'pageworks: missing --email\n'],
    [['frobnicate'], 'pageworks: unknown command "frobnicate" (see pageworks --help)\n'],
  ])('refuses %j with one line and exit code 2', (args, message) => {
    const res = pageworks(args);
    expect(res.code).toBe(2);
    expect(res.stderr).toBe(message);
    expect(res.stdout).toBe('');
  });

  it.each([
    ['RENDER_PORT', 'abc'],
    ['METADATA_RATE_LIMIT', '-1'],
    ['DATABASE_URL', 'mysql://root@localhost/db'],
  ])('stops on %s=%s with one line naming the variable', (name, value) => {
    const res = pageworks(['keys', 'list', '--email', 'a@example.com'], { [name]: value });
    expect(res.code).toBe(2);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(new RegExp(`^pageworks: ${name}: `));
  });
});

describe('pageworks serve', () => {
  let child: ChildProcess | undefined;
  afterAll(() => child?.kill('SIGKILL'));

  it('starts every service, bootstraps a local account on an empty store, and stops on SIGTERM', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-serve-'));
    child = spawn(process.execPath, [...PAGEWORKS, 'serve'], {
      cwd: ROOT,
      env: cleanEnv({
        PAGEWORKS_DATA_DIR: dir,
        DASHBOARD_PORT: '0',
        RENDER_PORT: '0',
        METADATA_PORT: '0',
        RENDER_CONCURRENCY: '1',
        EGRESS_ALLOW: '127.0.0.1/32',
        LOG_LEVEL: 'info',
        LOG_FORMAT: 'json',
      }),
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const started = Date.now();
    // The listening lines and the start-up log are two streams: wait for both ends.
    const ready = () => /metadata\s+listening on/.test(out) && out.includes('"msg":"EGRESS_ALLOW opens');
    while (!ready() && Date.now() - started < 60_000 && child.exitCode === null) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(out).toMatch(/render key\s+: pwr_live_[0-9a-f]{32}/);
    const metadataKey = /metadata key\s+: (pwm_live_[0-9a-f]{32})/.exec(out)?.[1];
    expect(metadataKey).toBeDefined();
    const ports = Object.fromEntries(
      [...out.matchAll(/^(dashboard|render|metadata)\s+listening on http:\/\/127\.0\.0\.1:(\d+)$/gm)].map((m) => [
        m[1],
        Number(m[2]),
      ]),
    );
    expect(Object.keys(ports).sort()).toEqual(['dashboard', 'metadata', 'render']);
    // The allow-list at info level, beside the other start-up facts.
    const lines = out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg: string; egressAllow?: string[] });
    const startedAt = lines.findIndex((l) => l.msg === 'pageworks started');
    expect(startedAt).toBeGreaterThanOrEqual(0);
    expect(lines[startedAt + 1]).toMatchObject({
      level: 30,
      msg: 'EGRESS_ALLOW opens 127.0.0.1/32',
      egressAllow: ['127.0.0.1/32'],
    });
    for (const service of ['render', 'metadata'] as const) {
      const health = await fetch(`http://127.0.0.1:${ports[service]}/v1/health`);
      expect(await health.json()).toEqual({ status: 'healthy', version: expect.stringMatching(/^\d+\.\d+\.\d+$/) });
    }
    const unauthorised = await fetch(`http://127.0.0.1:${ports.metadata}/v1/fetch?url=http://example.com`, {
      headers: { 'x-api-key': metadataKey!.replace(/.$/, (c) => (c === '0' ? '1' : '0')) },
    });
    expect(unauthorised.status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${ports.dashboard}/`)).status).toBeLessThan(500);

    const exited = new Promise<number | null>((resolve) => child!.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).toContain('pageworks stopped');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
