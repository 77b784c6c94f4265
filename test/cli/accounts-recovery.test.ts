import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CoreDeps, closeCore, createCore } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { buildMetadataApp } from '../../src/app/metadata-app.js';
import { loadConfig } from '../../src/config.js';
import { JobQueue, pdfKey } from '../../src/jobs/queue.js';
import { FormClient, freshIp } from '../dashboard/client.js';
import { runPageworks } from '../helpers/cli.js';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-cli-recovery-'));
const PUBLIC = 'https://dash.example.com';

/** `pageworks …` on this file's embedded store. */
function pageworks(args: string[]) {
  return runPageworks(dataDir, args, { DASHBOARD_PUBLIC_URL: PUBLIC });
}

// A running server on the same SQLite file, as `pageworks serve` would be while the operator uses the CLI.
let core: CoreDeps;
let dashboard: FastifyInstance;
let metadata: FastifyInstance;

beforeAll(async () => {
  const config = loadConfig({ PAGEWORKS_DATA_DIR: dataDir, LOG_LEVEL: 'silent', DASHBOARD_PUBLIC_URL: PUBLIC });
  core = await createCore(config, pino({ level: 'silent' }));
  dashboard = await buildDashboardApp(core);
  metadata = await buildMetadataApp(core);
});
afterAll(async () => {
  await dashboard?.close();
  await metadata?.close();
  if (core) await closeCore(core);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function resetWith(link: string, password: string) {
  const client = new FormClient(dashboard, freshIp());
  const page = await client.get(link.slice(PUBLIC.length));
  if (page.statusCode !== 200) return page;
  const token = new URL(link).searchParams.get('token')!;
  return client.post('/reset-password', { _csrf: client.csrf(), token, new_password: password, new_password_confirm: password });
}

describe('pageworks accounts reset-password', () => {
  it('prints a one-time link alone on stdout; the link sets a new password once', async () => {
    expect(pageworks(['accounts', 'create', '--email', 'r@example.com', '--password', 'the first password']).code).toBe(0);
    const res = pageworks(['accounts', 'reset-password', '--email', 'R@example.com']);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^https:\/\/dash\.example\.com\/reset-password\?token=[A-Za-z0-9_-]{43}\n$/);
    expect(res.stderr).toContain('valid 30 minutes');
    const link = res.stdout.trim();

    const done = await resetWith(link, 'the second password');
    expect(done.statusCode).toBe(303);
    expect(await core.accounts.authenticate('r@example.com', 'the second password')).toBeDefined();
    expect((await resetWith(link, 'the third password!')).statusCode).toBe(400);
    expect(await core.accounts.authenticate('r@example.com', 'the second password')).toBeDefined();

    const account = (await core.accounts.findByEmail('r@example.com'))!;
    const kinds = (await core.store.listActivity(account.id, 10, 0)).map((e) => `${e.kind}/${e.actor}`);
    expect(kinds).toEqual(['password_reset/dashboard', 'password_reset_requested/cli']);
  });

  it('refuses an unknown email with one line and exit code 2', () => {
    const res = pageworks(['accounts', 'reset-password', '--email', 'nobody@example.com']);
    expect(res).toEqual({
      code: 2,
      stdout: '',
      stderr: `pageworks: no account for nobody@example.com in ${path.join(dataDir, 'pageworks.sqlite')} (PAGEWORKS_DATA_DIR)\n`,
    });
  });
});

describe('pageworks accounts delete', () => {
  it('refuses the keys on the running server at once, ends sessions, deletes its job PDFs, removes the account and leaves a tombstone', async () => {
    expect(pageworks(['accounts', 'create', '--email', 'd@example.com', '--password', 'the first password']).code).toBe(0);
    const key = pageworks(['keys', 'create', '--email', 'd@example.com', '--service', 'metadata']).stdout.trim();
    expect(pageworks(['accounts', 'set-limit', '--email', 'd@example.com', '--service', 'metadata', '--limit', '30']).code).toBe(
      0,
    );
    const account = (await core.accounts.findByEmail('d@example.com'))!;
    expect((await core.store.listActivity(account.id, 10, 0)).map((e) => `${e.kind}/${e.actor}/${e.detail}`)).toEqual([
      'limit_changed/cli/metadata: 30 per minute',
      `key_created/cli/${key.slice(0, 13)}… (metadata)`,
    ]);
    const browser = new FormClient(dashboard, freshIp());
    expect(
      (await browser.submit('/login', '/login', { email: 'd@example.com', password: 'the first password' })).statusCode,
    ).toBe(303);
    // A finished render job of the account, with its PDF where RESULT_STORE (unset: the data dir) keeps it.
    const queue = new JobQueue({ store: core.store, results: core.results, maxQueuedPerAccount: 10 });
    const { row } = await queue.submit(account.id, {
      request: { html: '<p>x</p>' },
      reference: null,
      webhookUrl: null,
      idempotencyKey: null,
    });
    const claimed = (await core.store.claimJob('cli-test', Date.now(), { leaseMs: 30_000, maxAttempts: 3 }))!;
    expect(claimed.id).toBe(row.id);
    await core.results.put(pdfKey(claimed), Buffer.from('%PDF-1.4\n'));
    const pdf = { key: pdfKey(claimed), bytes: 9, pages: 1, expiresAt: Date.now() + 3600_000, store: core.results.id };
    expect(await core.store.finishJob(claimed.id, 'cli-test', Date.now(), { pdf })).toBe(true);
    const stored = await core.results.get(pdf.key);
    expect(stored?.bytes).toBe(9);
    stored?.body.destroy();
    const call = () => metadata.inject({ url: '/v1/fetch?url=http://127.0.0.1:9/', headers: { 'x-api-key': key } });
    // Accepted twice (the second from the server's found-key cache): 400 is the egress policy refusing the URL.
    expect((await call()).statusCode).toBe(400);
    expect((await call()).statusCode).toBe(400);

    const res = pageworks(['accounts', 'delete', '--email', 'd@example.com']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^deleted account d@example\.com \(acc_[0-9a-f]{32}\): its keys are refused from now on/);

    expect((await call()).statusCode).toBe(401);
    expect(await core.results.get(pdf.key)).toBeUndefined();
    expect((await browser.get('/keys')).headers.location).toBe('/login');
    expect(pageworks(['keys', 'list', '--email', 'd@example.com']).stderr).toBe(
      `pageworks: no account for d@example.com in ${path.join(dataDir, 'pageworks.sqlite')} (PAGEWORKS_DATA_DIR)\n`,
    );
    const left = await core.store.listActivity(account.id, 10, 0);
    expect(left.map((e) => `${e.kind}/${e.actor}`)).toEqual(['account_deleted/cli']);
    expect(JSON.stringify(left)).not.toContain('d@example.com');
  });

  it('refuses an unknown email with one line and exit code 2', () => {
    expect(pageworks(['accounts', 'delete', '--email', 'nobody@example.com'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `pageworks: no account for nobody@example.com in ${path.join(dataDir, 'pageworks.sqlite')} (PAGEWORKS_DATA_DIR)\n`,
    });
  });
});
