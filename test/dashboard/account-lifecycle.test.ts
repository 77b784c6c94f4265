import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { buildMetadataApp } from '../../src/app/metadata-app.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import { DATABASE_URL } from '../helpers/backends.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { type FreshDatabase, freshDatabase } from '../scale/backends.js';
import { createdKey, FormClient, keyIdOf, logIn, PASSWORD, signUp } from './client.js';

let core: CoreDeps;
let app: FastifyInstance;
let metadata: FastifyInstance;
let render: FastifyInstance;
let n = 0;
const email = () => `life${++n}@example.com`;

// The same tests on the embedded store and, when DATABASE_URL is set, on a fresh PostgreSQL database.
const backends = [
  { name: 'sqlite', enabled: true, database: async (): Promise<FreshDatabase | undefined> => undefined },
  { name: 'postgres', enabled: Boolean(DATABASE_URL), database: () => freshDatabase(DATABASE_URL!, 'pw_life') },
];

/** The live session rows of the account page: [public id or null for this one, text]. */
function sessionRows(body: string): Array<{ id: string | null; current: boolean; text: string }> {
  return body
    .split('<li class="session-row"')
    .slice(1)
    .map((chunk) => {
      const row = chunk.slice(0, chunk.indexOf('</li>'));
      return {
        id: /name="session" value="([^"]+)"/.exec(row)?.[1] ?? null,
        current: row.startsWith(' data-current'),
        text: row.replace(/<[^>]+>/g, ' '),
      };
    });
}

/** A metadata request with the key (the URL is refused by the egress policy once the key is accepted). */
const fetchWith = (key: string) => metadata.inject({ url: '/v1/fetch?url=http://127.0.0.1:9/', headers: { 'x-api-key': key } });
const renderWith = (key: string) =>
  render.inject({
    method: 'POST',
    url: '/v1/render',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    payload: '{}',
  });

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`account lifecycle on ${backend.name}`, () => {
    let db: FreshDatabase | undefined;
    beforeAll(async () => {
      db = await backend.database();
      core = await createTestCore(db ? { DATABASE_URL: db.url } : {});
      app = await buildDashboardApp(core);
      metadata = await buildMetadataApp(core);
      render = await buildRenderApp(core);
    });
    afterAll(async () => {
      await app?.close();
      await metadata?.close();
      await render?.close();
      if (core) await closeTestCore(core);
      await db?.drop();
    });

    describe('sessions list', () => {
      it('lists each session with its browser and address, marks this one, and ends one or all others', async () => {
        const address = email();
        const mine = await signUp(app, address);
        const phone = new FormClient(app, '198.51.100.7');
        await phone.submit('/login', '/login', { email: address, password: PASSWORD });
        const { client: laptop } = await logIn(app, address, PASSWORD, '198.51.100.8');

        await mine.get('/account');
        const rows = sessionRows(mine.body);
        expect(rows).toHaveLength(3);
        expect(rows.filter((r) => r.current)).toHaveLength(1);
        expect(rows.find((r) => r.current)!.text).toContain('This session');
        expect(rows.find((r) => r.current)!.id).toBeNull();
        expect(rows.map((r) => r.text).join(' ')).toContain('198.51.100.7');
        expect(rows.map((r) => r.text).join(' ')).toContain('lightMyRequest');
        // Neither the cookie nor its hash is on the page.
        for (const value of mine.cookies.values()) expect(mine.body).not.toContain(value);

        const phoneRow = rows.find((r) => r.text.includes('198.51.100.7'))!;
        const ended = await mine.post('/account/sessions/end', { _csrf: mine.csrf(), session: phoneRow.id! });
        expect(ended.headers.location).toBe('/account?ended');
        expect((await phone.get('/keys')).headers.location).toBe('/login');
        expect((await laptop.get('/keys')).statusCode).toBe(200);

        await mine.get('/account');
        await mine.post('/account/sessions/end-others', { _csrf: mine.csrf() });
        expect((await laptop.get('/keys')).headers.location).toBe('/login');
        expect((await mine.get('/account')).statusCode).toBe(200);
        expect(sessionRows(mine.body)).toHaveLength(1);
      });

      it("cannot end another account's session, and needs the CSRF token", async () => {
        const victimEmail = email();
        const victim = await signUp(app, victimEmail);
        const victimId = (await core.store.listSessions((await core.accounts.findByEmail(victimEmail))!.id))[0]!.publicId;
        const attacker = await signUp(app, email());
        await attacker.get('/account');
        expect((await attacker.post('/account/sessions/end', { _csrf: attacker.csrf(), session: victimId })).statusCode).toBe(
          303,
        );
        expect((await victim.get('/keys')).statusCode).toBe(200);
        expect((await victim.post('/account/sessions/end-others', { _csrf: 'wrong' })).statusCode).toBe(403);
      });
    });

    describe('activity log', () => {
      it('records sign-ins (success and failure), key changes, password changes and ended sessions, newest first', async () => {
        const address = email();
        const client = await signUp(app, address);
        await logIn(app, address, 'not the password', '203.0.113.5');
        await new FormClient(app, '203.0.113.6').submit('/login', '/login', { email: address, password: PASSWORD });
        await client.createKey({ service: 'metadata', name: 'ci' });
        const key = createdKey(client.body);
        await client.get('/keys');
        await client.submit(`/keys/${keyIdOf(client.body, key)}/revoke`, `/keys/${keyIdOf(client.body, key)}/revoke`, {});
        await client.submit('/account', '/account/password', {
          current_password: PASSWORD,
          new_password: 'another long password',
          new_password_confirm: 'another long password',
        });
        await client.submit('/account', '/account/sessions/end-others', {});
        // The failed sign-in is written after its answer.
        await new Promise((r) => setTimeout(r, 200));

        const page = await client.get('/activity');
        expect(page.statusCode).toBe(200);
        const rows = client.body
          .split('<li class="activity-row')
          .slice(1)
          .map((c) => c.slice(0, c.indexOf('</li>')));
        const titles = rows.map((row) => /<strong>(.*?)<\/strong>/.exec(row)?.[1]);
        const items = rows.map((row) => row.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' '));
        expect(titles).toEqual([
          'Session ended',
          'Password changed',
          'API key revoked',
          'API key created',
          'Signed in',
          'Failed sign-in (wrong password)',
        ]);
        expect(items[2]).toContain(`${key.slice(0, 13)}… (metadata)`);
        expect(items[3]).toContain(`${key.slice(0, 13)}… (metadata)`);
        expect(items[3]).toContain('by dashboard');
        expect(items[4]).toContain('203.0.113.6');
        expect(items[5]).toContain('203.0.113.5');
        expect(items[4]).toContain('lightMyRequest');
      });

      it('pages 50 entries at a time', async () => {
        const address = email();
        const client = await signUp(app, address);
        const account = (await core.accounts.findByEmail(address))!;
        for (let i = 0; i < 55; i++)
          await core.activity.record(account.id, 'limit_changed', 'cli', { detail: `render: ${i + 1} per minute` });
        await client.get('/activity');
        expect(client.body.match(/<li class="activity-row/g)).toHaveLength(50);
        expect(client.body).toContain('render: 55 per minute');
        expect(client.body).toContain('href="/activity?page=2"');
        await client.get('/activity?page=2');
        expect(client.body.match(/<li class="activity-row/g)).toHaveLength(5);
        expect(client.body).toContain('render: 1 per minute');
        expect(client.body).toContain('by administrator (CLI)');
        expect(client.body).not.toContain('href="/activity?page=3"');
      });

      it('prunes entries past the retention period', async () => {
        const account = await core.accounts.create(email());
        await core.store.addActivity({
          ...core.activity.entry(account.id, 'sign_in', 'dashboard'),
          at: Date.now() - 91 * 86_400_000,
        });
        await core.activity.record(account.id, 'sign_in', 'dashboard');
        expect(await core.activity.prune()).toBeGreaterThanOrEqual(1);
        expect((await core.activity.page(account.id, 1)).entries).toHaveLength(1);
      });
    });

    describe('account deletion from the dashboard', () => {
      it('needs the password; then every key is refused at once, every session ends, the account is gone', async () => {
        const address = email();
        const client = await signUp(app, address);
        const { client: elsewhere } = await logIn(app, address);
        await client.createKey({ service: 'metadata' });
        const metadataKey = createdKey(client.body);
        await client.createKey({ service: 'render' });
        const renderKey = createdKey(client.body);
        // Accepted (and so cached by the SQLite store's found-key cache): 400 is the egress policy refusing the URL.
        for (let i = 0; i < 2; i++) expect((await fetchWith(metadataKey)).statusCode).toBe(400);
        expect((await renderWith(renderKey)).statusCode).toBe(400);

        const wrong = await client.submit('/account', '/account/delete', { password: 'not my password' });
        expect(wrong.statusCode).toBe(400);
        expect(wrong.body).toContain('The password is not correct.');
        expect((await fetchWith(metadataKey)).statusCode).toBe(400);
        expect((await client.post('/account/delete', { _csrf: 'forged', password: PASSWORD })).statusCode).toBe(403);

        const accountId = (await core.accounts.findByEmail(address))!.id;
        const deleted = await client.submit('/account', '/account/delete', { password: PASSWORD });
        expect(deleted.statusCode).toBe(303);
        expect(deleted.headers.location).toBe('/login?deleted');

        const refused = await fetchWith(metadataKey);
        expect(refused.statusCode).toBe(401);
        expect(JSON.parse(refused.body)).toEqual({ detail: 'unknown API key' });
        expect((await renderWith(renderKey)).statusCode).toBe(401);
        expect((await elsewhere.get('/keys')).headers.location).toBe('/login');
        expect((await client.get('/keys')).headers.location).toBe('/login');
        expect((await logIn(app, address)).res.statusCode).toBe(401);
        expect(await core.accounts.findByEmail(address)).toBeUndefined();
        expect(await core.store.usageSince(accountId, '2000-01-01')).toEqual([]);
        const left = await core.store.listActivity(accountId, 10, 0);
        expect(left.map((e) => e.kind)).toEqual(['account_deleted']);
        expect(JSON.stringify(left)).not.toContain(address);
        // The address can sign up again, as a new account.
        expect((await signUp(app, address)).cookies.size).toBeGreaterThan(0);
      });

      it("takes the account's render jobs with it: their PDFs are deleted from the result store", async () => {
        const address = email();
        const client = await signUp(app, address);
        await client.createKey({ service: 'render' });
        const authorization = `Bearer ${createdKey(client.body)}`;
        const submitted = await render.inject({
          method: 'POST',
          url: '/v1/jobs',
          headers: { authorization, 'content-type': 'application/json' },
          payload: JSON.stringify({ html: '<p>kept until the account goes</p>' }),
        });
        expect(submitted.statusCode).toBe(202);
        const { id } = JSON.parse(submitted.body) as { id: string };
        let status = 'queued';
        for (let i = 0; i < 300 && (status === 'queued' || status === 'running'); i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          status = JSON.parse((await render.inject({ url: `/v1/jobs/${id}`, headers: { authorization } })).body).status;
        }
        expect(status).toBe('succeeded');
        const pdf = await render.inject({ url: `/v1/jobs/${id}/pdf`, headers: { authorization } });
        expect(pdf.statusCode).toBe(200);
        expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
        const key = (await core.store.findJob(id))?.pdf_key;
        expect(key).toMatch(/\.pdf$/);

        expect((await client.submit('/account', '/account/delete', { password: PASSWORD })).statusCode).toBe(303);
        expect(await core.results.get(key!)).toBeUndefined();
        expect(await core.store.findJob(id)).toBeUndefined();
      });

      it.skipIf(backend.name !== 'sqlite')(
        'a deletion by another process (the CLI) is seen by the next request of this one (SQLite key cache)',
        async () => {
          const address = email();
          const client = await signUp(app, address);
          await client.createKey({ service: 'metadata' });
          const key = createdKey(client.body);
          for (let i = 0; i < 2; i++) expect((await fetchWith(key)).statusCode).toBe(400);
          const other = await openSqliteStore(core.config.dataDir);
          try {
            const account = (await other.findAccountByEmail(address))!;
            expect(await other.deleteAccount(account.id, core.activity.entry(account.id, 'account_deleted', 'cli'))).toBe(true);
          } finally {
            await other.close();
          }
          expect((await fetchWith(key)).statusCode).toBe(401);
        },
      );
    });
  });
}
