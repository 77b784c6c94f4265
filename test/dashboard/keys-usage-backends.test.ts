import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { DATABASE_URL } from '../helpers/backends.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { type FreshDatabase, freshDatabase } from '../scale/backends.js';
import { createdKey, keyIdOf, logIn, PASSWORD, signUp } from './client.js';

// Creating a key (POST, redirect, one display) and per-key usage through the dashboard, on SQLite and
// on PostgreSQL (issue 16).

interface Backend {
  name: string;
  enabled: boolean;
  env(): Promise<Record<string, string>>;
  /** Whether any stored byte (SQLite files) or row (PostgreSQL tables) contains `text`. */
  contains(text: string): Promise<boolean>;
  cleanup(): Promise<void>;
}

let pgDb: FreshDatabase | undefined;
let sqliteCore: CoreDeps | undefined;

const backends: Backend[] = [
  {
    name: 'sqlite',
    enabled: true,
    env: async () => ({}),
    contains: async (text) => {
      const dir = sqliteCore!.config.dataDir;
      return fs.readdirSync(dir).some((file) => fs.readFileSync(path.join(dir, file)).includes(text));
    },
    cleanup: async () => {},
  },
  {
    name: 'postgres',
    enabled: Boolean(DATABASE_URL),
    env: async () => {
      pgDb = await freshDatabase(DATABASE_URL!, 'pw_keys');
      return { DATABASE_URL: pgDb.url };
    },
    contains: async (text) => {
      const tables = await pgDb!.query<{ table_name: string }>(
        "select table_name from information_schema.tables where table_schema = 'public'",
      );
      for (const { table_name } of tables) {
        const rows = await pgDb!.query<{ row: string }>(`select row_to_json(t)::text as row from ${table_name} t`);
        if (rows.some((r) => r.row.includes(text))) return true;
      }
      return false;
    },
    cleanup: async () => pgDb?.drop(),
  },
];

function rowOf(body: string, id: string): string {
  const start = body.indexOf(`<tr data-key-id="${id}">`);
  return body.slice(start, body.indexOf('</tr>', start));
}

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`keys and per-key usage in the dashboard: ${backend.name}`, () => {
    let core: CoreDeps;
    let app: FastifyInstance;
    let n = 0;
    const email = () => `keys-${backend.name}-${++n}@example.com`;

    beforeAll(async () => {
      core = await createTestCore(await backend.env());
      if (backend.name === 'sqlite') sqliteCore = core;
      app = await buildDashboardApp(core);
    });
    afterAll(async () => {
      await app?.close();
      if (core) await closeTestCore(core);
      await backend.cleanup();
    });

    describe('creating a key (POST, redirect, GET)', () => {
      it('shows the new key on the one page after the redirect; a reload shows it no more and creates nothing', async () => {
        const address = email();
        const client = await signUp(app, address);
        await client.get('/keys');
        const post = await client.post('/keys', { _csrf: client.csrf(), service: 'render', name: 'once' });
        expect(post.statusCode).toBe(303);
        const location = String(post.headers.location);
        expect(location).toMatch(/^\/keys\?created=key_[0-9a-f]+#new-key$/);
        expect(post.body).toBe('');

        const shown = await client.get(location.split('#')[0]!);
        const key = createdKey(shown.body);
        expect(shown.body).toContain('id="new-key"');
        const id = keyIdOf(shown.body, key);

        // The reload: same address, no key, one key in the list, and a word about why.
        const reload = await client.get(location.split('#')[0]!);
        expect(reload.statusCode).toBe(200);
        expect(reload.body).not.toContain(key);
        expect(reload.body).not.toContain('id="new-key-value"');
        expect(reload.body).toContain('was shown once, when it was created, and is not shown again');
        expect(reload.body.match(/<tr data-key-id=/g)).toHaveLength(1);
        expect((await core.keys.list((await core.accounts.findByEmail(address))!.id)).map((k) => k.id)).toEqual([id]);

        // Nowhere in the database: the waiting copy is sealed with the session id, which only the cookie holds.
        expect(await backend.contains(key)).toBe(false);
        expect(await backend.contains(key.slice(0, 13))).toBe(true); // the display prefix is there: the search sees stored data
      });

      it('another session of the same account never sees the key', async () => {
        const address = email();
        const first = await signUp(app, address);
        await first.get('/keys');
        const post = await first.post('/keys', { _csrf: first.csrf(), service: 'metadata' });
        const url = String(post.headers.location).split('#')[0]!;
        const { client: second } = await logIn(app, address, PASSWORD);
        const other = await second.get(url);
        expect(other.body).not.toContain('id="new-key-value"');
        // The first session still gets its one look.
        expect(createdKey((await first.get(url)).body)).toMatch(/^pwm_live_/);
      });
    });

    describe('per-key usage', () => {
      it('shows requests per key over 7 days; revoking the idle key says it is safe, the busy one warns', async () => {
        const address = email();
        const client = await signUp(app, address);
        const account = (await core.accounts.findByEmail(address))!;
        const busy = await core.keys.create(account.id, 'render', 'busy');
        const idle = await core.keys.create(account.id, 'render', 'idle');
        for (let i = 0; i < 3; i++) core.usage.record(account.id, 'render', 'ok', busy.record.id);
        core.usage.record(account.id, 'render', 'client_error', busy.record.id);
        core.lastUsed.record(busy.record.id, Date.now());

        const page = (await client.get('/keys')).body;
        expect(page).toContain('Requests (7 d)');
        expect(rowOf(page, busy.record.id)).toMatch(
          /<td class="num" data-label="Requests \(7 d\)"><a href="\/usage\?key=key_[0-9a-f]+" title="OK: 3, Client error: 1">4<\/a><\/td>/,
        );
        expect(rowOf(page, idle.record.id)).toContain('<span class="muted idle">0</span>');
        expect(rowOf(page, idle.record.id)).toContain('never');

        const idleConfirm = (await client.get(`/keys/${idle.record.id}/revoke`)).body;
        expect(idleConfirm).toContain(
          '<strong>No requests in the last 7 days</strong> (never used): nothing seems to depend on this key.',
        );
        expect(idleConfirm).toContain('alert-ok');
        const busyConfirm = (await client.get(`/keys/${busy.record.id}/revoke`)).body;
        expect(busyConfirm).toContain('<strong>4 requests in the last 7 days</strong> (last used just now)');
        expect(busyConfirm).toContain('alert-warn');

        // The usage page, filtered by key: the busy key's chart, then the idle key's empty state.
        const busyUsage = (await client.get(`/usage?key=${busy.record.id}`)).body;
        expect(busyUsage).toContain('for the render service: 4 in total.');
        expect(busyUsage).not.toContain('id="usage-metadata"');
        expect((await client.get(`/usage?key=${idle.record.id}`)).body).toContain(
          'No requests with this key in the last 30 days.',
        );
        // By hour: the last 24 hours.
        expect((await client.get(`/usage?key=${busy.record.id}&range=24h`)).body).toContain(
          'Requests per hour over the last 24 hours for the render service: 4 in total.',
        );
        // Someone else's key id is ignored: the whole account is shown.
        expect((await client.get('/usage?key=key_not_mine')).body).toContain('id="usage-metadata"');

        // After a rotation the old key's history stays visible, greyed, on both pages.
        await client.submit(`/keys/${busy.record.id}/revoke`, `/keys/${busy.record.id}/revoke`, {});
        const after = (await client.get('/keys')).body;
        const revokedRow = after.slice(after.indexOf(`<tr data-revoked-key-id="${busy.record.id}">`));
        expect(after).toContain('<details class="revoked" open>');
        expect(revokedRow.slice(0, revokedRow.indexOf('</tr>'))).toContain('>4</a>');
        const revokedUsage = (await client.get(`/usage?key=${busy.record.id}`)).body;
        expect(revokedUsage).toContain('class="card revoked"');
        expect(revokedUsage).toContain('its history stays here');
        expect(revokedUsage).toMatch(
          /<option value="key_[0-9a-f]+" selected class="revoked">busy \(pwr_live_[0-9a-f]{4}…\) · revoked<\/option>/,
        );
      });
    });
  });
}
