import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PasswordResets, RESET_TOKEN_TTL_MS } from '../../src/accounts/password-reset.js';
import { type CoreDeps, closeCore, createCore } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { loadConfig } from '../../src/config.js';
import { DATABASE_URL } from '../helpers/backends.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { MailCatcher, resetLinkIn } from '../helpers/smtp.js';
import { type FreshDatabase, freshDatabase } from '../scale/backends.js';
import { FormClient, freshIp, logIn, PASSWORD, signUp } from './client.js';

const PUBLIC = 'http://dashboard.test:8080';
const NEW_PASSWORD = 'a brand new passphrase';

let catcher: MailCatcher;
let core: CoreDeps;
let app: FastifyInstance;
let n = 0;
const email = () => `reset${++n}@example.com`;

beforeAll(async () => {
  catcher = await MailCatcher.start();
});
afterAll(async () => {
  await catcher?.close();
});

// The mail flow on the embedded store and, when DATABASE_URL is set, on a fresh PostgreSQL database.
const backends = [
  { name: 'sqlite', enabled: true, database: async (): Promise<FreshDatabase | undefined> => undefined },
  { name: 'postgres', enabled: Boolean(DATABASE_URL), database: () => freshDatabase(DATABASE_URL!, 'pw_reset') },
];

/** Asks for a reset link from a fresh client and returns the link's path (the mail goes through real SMTP). */
async function requestLink(address: string, mailsBefore = 0): Promise<string> {
  const res = await new FormClient(app, freshIp()).submit('/forgot-password', '/forgot-password', { email: address });
  expect(res.statusCode).toBe(200);
  const mails = await catcher.waitFor(address, mailsBefore + 1);
  const link = resetLinkIn(mails[mails.length - 1]!);
  expect(link.startsWith(`${PUBLIC}/reset-password?token=`)).toBe(true);
  return link.slice(PUBLIC.length);
}

async function resetWith(path: string, password = NEW_PASSWORD, confirm = password) {
  const client = new FormClient(app, freshIp());
  const page = await client.get(path);
  if (page.statusCode !== 200) return page;
  const token = new URL(path, PUBLIC).searchParams.get('token')!;
  return client.post('/reset-password', { _csrf: client.csrf(), token, new_password: password, new_password_confirm: confirm });
}

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`password reset by mail (SMTP_URL set) on ${backend.name}`, () => {
    let db: FreshDatabase | undefined;
    beforeAll(async () => {
      db = await backend.database();
      core = await createTestCore({
        SMTP_URL: catcher.url,
        DASHBOARD_PUBLIC_URL: `${PUBLIC}/`,
        ...(db ? { DATABASE_URL: db.url } : {}),
      });
      app = await buildDashboardApp(core);
    });
    afterAll(async () => {
      await app?.close();
      if (core) await closeTestCore(core);
      await db?.drop();
    });

    it('the log-in page links to "Forgot password?"', async () => {
      const res = await app.inject({ url: '/login' });
      expect(res.body).toContain('<a href="/forgot-password">Forgot password?</a>');
    });

    it('mails a one-time link that sets a new password, ends every session, and cannot be used twice', async () => {
      const address = email();
      const first = await signUp(app, address);
      const { client: second } = await logIn(app, address);
      expect((await second.get('/keys')).statusCode).toBe(200);

      const path = await requestLink(address);
      const mail = catcher.to(address)[0]!;
      expect(mail.subject).toBe('Reset your Pageworks password');
      expect(mail.from?.value).toEqual([{ name: 'Pageworks', address: 'no-reply@localhost' }]);
      expect(mail.text).toContain('within 30 minutes');

      expect((await resetWith(path, 'short')).statusCode).toBe(400);
      const mismatch = await resetWith(path, NEW_PASSWORD, `${NEW_PASSWORD}!`);
      expect(mismatch.statusCode).toBe(400);
      expect(mismatch.body).toContain('The two passwords do not match.');

      const done = await resetWith(path);
      expect(done.statusCode).toBe(303);
      expect(done.headers.location).toBe('/login?reset');
      expect((await app.inject({ url: '/login?reset' })).body).toContain('Your password was reset and every session signed out.');

      // Both sessions from before are gone.
      expect((await first.get('/keys')).headers.location).toBe('/login');
      expect((await second.get('/keys')).headers.location).toBe('/login');
      expect((await logIn(app, address, PASSWORD)).res.statusCode).toBe(401);
      expect((await logIn(app, address, NEW_PASSWORD)).res.headers.location).toBe('/keys');

      // The same link again: refused, the password stays.
      const again = await resetWith(path, 'yet another passphrase');
      expect(again.statusCode).toBe(400);
      expect(again.body).toContain('This link no longer works');
      const token = new URL(path, PUBLIC).searchParams.get('token')!;
      const client = new FormClient(app, freshIp());
      await client.get('/forgot-password');
      const replay = await client.post('/reset-password', {
        _csrf: client.csrf(),
        token,
        new_password: 'yet another passphrase',
        new_password_confirm: 'yet another passphrase',
      });
      expect(replay.statusCode).toBe(400);
      expect((await logIn(app, address, NEW_PASSWORD)).res.headers.location).toBe('/keys');
    });

    it('refuses an expired link', async () => {
      const address = email();
      await signUp(app, address);
      const account = (await core.accounts.findByEmail(address))!;
      const past = new PasswordResets(core.store, core.accounts, () => Date.now() - RESET_TOKEN_TTL_MS - 1000);
      const token = await past.issue(account.id);
      const res = await resetWith(`/reset-password?token=${token}`);
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('This link no longer works');
      expect((await logIn(app, address, PASSWORD)).res.headers.location).toBe('/keys');
    });

    it('a password change voids links issued before it', async () => {
      const address = email();
      const client = await signUp(app, address);
      const path = await requestLink(address);
      const changed = await client.submit('/account', '/account/password', {
        current_password: PASSWORD,
        new_password: NEW_PASSWORD,
        new_password_confirm: NEW_PASSWORD,
      });
      expect(changed.statusCode).toBe(303);
      expect((await resetWith(path, 'a third passphrase here')).statusCode).toBe(400);
      expect((await logIn(app, address, NEW_PASSWORD)).res.headers.location).toBe('/keys');
    });

    it("a link resets only its own account's password, whoever opens it", async () => {
      const owner = email();
      const other = email();
      await signUp(app, owner);
      const otherClient = await signUp(app, other);
      const path = await requestLink(owner);
      // Opened in the other account's signed-in browser.
      await otherClient.get(path);
      const token = new URL(path, PUBLIC).searchParams.get('token')!;
      const res = await otherClient.post('/reset-password', {
        _csrf: otherClient.csrf(),
        token,
        new_password: NEW_PASSWORD,
        new_password_confirm: NEW_PASSWORD,
      });
      expect(res.statusCode).toBe(303);
      expect((await logIn(app, owner, NEW_PASSWORD)).res.headers.location).toBe('/keys');
      expect((await logIn(app, other, PASSWORD)).res.headers.location).toBe('/keys');
      expect((await logIn(app, other, NEW_PASSWORD)).res.statusCode).toBe(401);
    });

    it('answers the same for a known and an unknown email: status, headers, body, and time (20 tries each)', async () => {
      const known: string[] = [];
      for (let i = 0; i < 20; i++) {
        const address = `known${i}-${backend.name}-${process.pid}@example.com`;
        await core.accounts.create(address);
        known.push(address);
      }
      // Over a real socket, as an attacker would time it.
      const base = await app.listen({ host: '127.0.0.1', port: 0 });
      const form = new FormClient(app, freshIp());
      await form.get('/forgot-password');
      const cookie = [...form.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
      const csrf = form.csrf();
      const ask = (address: string) =>
        new Promise<{ status: number; body: string; headers: Record<string, unknown>; ms: number }>((resolve, reject) => {
          const payload = new URLSearchParams({ _csrf: csrf, email: address }).toString();
          const started = process.hrtime.bigint();
          // From a loopback address of its own (the per-IP limit would stop one address after 10).
          const req = http.request(`${base}/forgot-password`, {
            method: 'POST',
            localAddress: freshIp(),
            agent: false,
            headers: {
              cookie,
              'content-type': 'application/x-www-form-urlencoded',
              'content-length': Buffer.byteLength(payload),
            },
          });
          req.on('response', (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (d) => (body += d));
            res.on('end', () => {
              const ms = Number(process.hrtime.bigint() - started) / 1e6;
              const { date: _date, ...headers } = res.headers;
              resolve({ status: res.statusCode!, body, headers, ms });
            });
          });
          req.on('error', reject);
          req.end(payload);
        });
      const answers = { known: [] as Awaited<ReturnType<typeof ask>>[], unknown: [] as Awaited<ReturnType<typeof ask>>[] };
      for (let i = 0; i < 20; i++) {
        // Alternated, so a slow moment of the shared machine hits both sides alike.
        answers.known.push(await ask(known[i]!));
        answers.unknown.push(await ask(`nobody${i}-${process.pid}@example.com`));
      }
      const reference = answers.known[0]!;
      expect(reference.status).toBe(200);
      for (const a of [...answers.known, ...answers.unknown]) {
        expect(a.status).toBe(reference.status);
        expect(a.body).toBe(reference.body);
        expect(a.headers).toEqual(reference.headers);
      }
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      const mKnown = median(answers.known.map((a) => a.ms));
      const mUnknown = median(answers.unknown.map((a) => a.ms));
      console.log(
        `forgot-password answer time, median of 20: known email ${mKnown.toFixed(2)} ms, unknown email ${mUnknown.toFixed(2)} ms`,
      );
      // Neither path touches the store before answering. The bound is loose on purpose (a shared, busy
      // machine): it catches a path that does real work first, such as a password hash or an awaited send.
      expect(Math.abs(mKnown - mUnknown)).toBeLessThan(Math.max(15, 0.75 * Math.max(mKnown, mUnknown)));
      // And the mail really went out for every known address (and for no unknown one).
      for (const address of known) await catcher.waitFor(address, 1);
      expect(catcher.mails.filter((m) => m.to && JSON.stringify(m.to).includes('nobody'))).toEqual([]);
    });

    it('throttles requests per email (known or not) with the same 429', async () => {
      for (const address of [email(), 'nobody-throttled@example.com']) {
        if (!address.startsWith('nobody')) await core.accounts.create(address);
        const statuses: number[] = [];
        for (let i = 0; i < 4; i++) {
          const res = await new FormClient(app, freshIp()).submit('/forgot-password', '/forgot-password', { email: address });
          statuses.push(res.statusCode);
        }
        expect(statuses).toEqual([200, 200, 200, 429]);
      }
    });

    it('throttles requests per IP', async () => {
      const client = new FormClient(app, freshIp());
      const statuses: number[] = [];
      for (let i = 0; i < 11; i++)
        statuses.push((await client.submit('/forgot-password', '/forgot-password', { email: `ip${i}@example.com` })).statusCode);
      expect(statuses).toEqual([...Array(10).fill(200), 429]);
    });
  });
}

describe('the reset token stays out of the logs', () => {
  it('the request log line of /reset-password carries the path without the token', async () => {
    const lines: string[] = [];
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-reset-log-'));
    const logged = await createCore(
      loadConfig({ PAGEWORKS_DATA_DIR: dir, LOG_LEVEL: 'info' }),
      pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }),
    );
    const logApp = await buildDashboardApp(logged);
    try {
      const account = await logged.accounts.create('logged@example.com', PASSWORD);
      const token = await logged.resets.issue(account.id);
      expect((await logApp.inject({ url: `/reset-password?token=${token}` })).statusCode).toBe(200);
      expect(lines.join('\n')).toContain('"url":"/reset-password?token=[redacted]"');
      expect(lines.join('\n')).not.toContain(token);
    } finally {
      await logApp.close();
      await closeCore(logged);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('password reset without SMTP_URL', () => {
  let plainCore: CoreDeps;
  let plain: FastifyInstance;
  beforeAll(async () => {
    plainCore = await createTestCore();
    plain = await buildDashboardApp(plainCore);
  });
  afterAll(async () => {
    await plain?.close();
    if (plainCore) await closeTestCore(plainCore);
  });

  it('the log-in page says to ask the administrator, with the CLI command', async () => {
    const res = await plain.inject({ url: '/login' });
    expect(res.body).toContain('Ask the administrator of this server for a reset link');
    expect(res.body).toContain('<code>pageworks accounts reset-password --email you@example.com</code>');
    expect(res.body).not.toContain('href="/forgot-password"');
  });

  it('the forgot-password route does not pretend to send mail', async () => {
    for (const method of ['GET', 'POST'] as const) {
      const res = await plain.inject({
        method,
        url: '/forgot-password',
        payload: method === 'POST' ? 'email=a%40example.com' : undefined,
        headers: method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {},
      });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('This server does not send mail.');
      expect(res.body).not.toContain('on its way');
    }
  });

  it('a link issued by the operator works once', async () => {
    const account = await plainCore.accounts.create('operator-made@example.com', PASSWORD);
    const token = await plainCore.resets.issue(account.id);
    const client = new FormClient(plain, freshIp());
    expect((await client.get(`/reset-password?token=${token}`)).statusCode).toBe(200);
    const form = { _csrf: client.csrf(), token, new_password: NEW_PASSWORD, new_password_confirm: NEW_PASSWORD };
    expect((await client.post('/reset-password', form)).statusCode).toBe(303);
    const again = await client.post('/reset-password', form);
    expect(again.statusCode).toBe(400);
    expect(again.body).toContain('Ask the administrator for a new link.');
  });
});
