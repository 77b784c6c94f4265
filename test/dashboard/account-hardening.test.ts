/**
 * Names a user chooses cannot carry control or invisible formatting characters; a new key that was
 * never displayed does not stay in the store; ending a session that is not yours says so.
 */
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { openSqliteFile, scalarOf } from '../../src/store/sqlite-driver.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { FormClient, freshIp, PASSWORD, signUp } from './client.js';

const UNSHOWABLE = /[\p{Cc}\p{Cf}]/u;

describe('names with control and formatting characters', () => {
  let core: CoreDeps;
  let app: FastifyInstance;
  let n = 0;
  beforeAll(async () => {
    core = await createTestCore();
    app = await buildDashboardApp(core);
  });
  afterAll(async () => {
    await app?.close();
    if (core) await closeTestCore(core);
  });

  it.each([
    ['a C1 control (CSI)', 'prod\u009b2J', 'U+009B at position 5'],
    ['a bidi override', 'prod\u202eevil', 'U+202E at position 5'],
    ['a bidi isolate', 'prod\u2066x\u2069', 'U+2066 at position 5'],
    ['a zero-width space', 'pro\u200bd', 'U+200B at position 4'],
    ['an escape (C0)', 'prod\u001b[31m', 'U+001B at position 5'],
    ['a word joiner', 'pr\u2060od', 'U+2060 at position 3'],
  ])('refuses a key name with %s, saying which character', async (_what, name, where) => {
    const client = await signUp(app, `names${++n}@example.com`);
    const res = await client.submit('/keys', '/keys', { service: 'render', name });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain(
      `The name cannot contain control or invisible formatting characters (found ${where}). It is taken out of the name below: check it and create the key again.`,
    );
    // The name is kept for the next try, without the character.
    expect(res.body).toContain(`value="${name.replace(/[\p{Cc}\p{Cf}]/gu, '')}"`);
    expect(await core.keys.list((await core.accounts.findByEmail(`names${n}@example.com`))!.id)).toEqual([]);
  });

  it('takes names in any script, emoji included', async () => {
    const client = await signUp(app, `names${++n}@example.com`);
    const res = await client.createKey({ service: 'metadata', name: 'café 日本 עברית 🚀' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('“café 日本 עברית 🚀”');
  });

  it('refuses such characters in the email address at sign-up', async () => {
    const client = new FormClient(app, freshIp());
    const res = await client.submit('/signup', '/signup', {
      email: 'ann\u202egro.elpmaxe@example.com',
      password: PASSWORD,
      password_confirm: PASSWORD,
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('An email address cannot contain control or invisible formatting characters (found U+202E');
    expect(await core.accounts.findByEmail('ann\u202egro.elpmaxe@example.com')).toBeUndefined();
  });

  it('shows a name stored before the rule with its characters escaped, never raw', async () => {
    const email = `names${++n}@example.com`;
    const client = await signUp(app, email);
    const account = (await core.accounts.findByEmail(email))!;
    await core.store.insertKey({
      id: 'key_legacy_control_name',
      accountId: account.id,
      service: 'render',
      keyHash: 'f'.repeat(64),
      displayPrefix: 'pwr_live_ffff',
      name: 'prod\u009b2J\u202eevil',
      createdAt: Date.now(),
    });
    const page = await client.get('/keys');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('prod\\u{9b}2J\\u{202e}evil');
    expect(UNSHOWABLE.test(page.body.replace(/[\n\r\t]/g, ''))).toBe(false);
  });
});

describe('ending a session from the sessions list', () => {
  let core: CoreDeps;
  let app: FastifyInstance;
  beforeAll(async () => {
    core = await createTestCore();
    app = await buildDashboardApp(core);
  });
  afterAll(async () => {
    await app?.close();
    if (core) await closeTestCore(core);
  });

  const sessionIds = (body: string) => [...body.matchAll(/name="session" value="([^"]+)"/g)].map((m) => m[1]!);

  it('says nothing was ended for an unknown or another account’s session, and ends your own', async () => {
    const mine = await signUp(app, 'ends-mine@example.com');
    const theirs = await signUp(app, 'ends-theirs@example.com');
    const other = new FormClient(app, freshIp());
    await other.submit('/login', '/login', { email: 'ends-mine@example.com', password: PASSWORD });
    const theirId = (await core.accounts.findByEmail('ends-theirs@example.com'))!.id;
    const foreign = (await core.store.listSessions(theirId))[0]!.publicId;
    await mine.get('/account');
    // Only the other session has an "End" form; this one is marked as the current session.
    const [otherId] = sessionIds(mine.body);
    expect(sessionIds(mine.body)).toHaveLength(1);

    for (const id of [foreign, 'no-such-session-id']) {
      await mine.get('/account');
      const res = await mine.post('/account/sessions/end', { _csrf: mine.csrf(), session: id });
      expect(res.headers.location).toBe('/account?not-ended');
      const page = await mine.get('/account?not-ended');
      expect(page.body).toContain('No session was ended: none of your live sessions has that id.');
      expect(page.body).not.toContain('The session was ended.');
    }
    // Nothing was ended on either side.
    expect((await theirs.get('/keys')).statusCode).toBe(200);
    expect((await other.get('/keys')).statusCode).toBe(200);

    await mine.get('/account');
    const res = await mine.post('/account/sessions/end', { _csrf: mine.csrf(), session: otherId! });
    expect(res.headers.location).toBe('/account?ended');
    expect((await mine.get('/account?ended')).body).toContain('The session was ended.');
    expect((await other.get('/keys')).headers.location).toBe('/login');
  });
});

describe('sealed new keys', () => {
  let core: CoreDeps | undefined;
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    if (core) await closeTestCore(core);
    vi.useRealTimers();
  });

  it('are gone from the store after the 15-minute purge once older than 10 minutes', async () => {
    // The clock and the periodic timer are the test's; everything else runs for real.
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    core = await createTestCore();
    app = await buildDashboardApp(core);
    const rows = openSqliteFile(path.join(core.config.dataDir, 'pageworks.sqlite'), { readonly: true });
    const sealed = () => (scalarOf(rows.prepare('select count(*) from key_reveals')) as number) ?? -1;
    try {
      const client = await signUp(app, 'sealed@example.com');
      // "Create key" and never the page that shows it: the sealed key waits in the store.
      expect((await client.submit('/keys', '/keys', { service: 'render', name: 'old' })).statusCode).toBe(303);
      vi.advanceTimersByTime(6 * 60_000);
      expect((await client.submit('/keys', '/keys', { service: 'render', name: 'young' })).statusCode).toBe(303);
      expect(sealed()).toBe(2);

      vi.advanceTimersByTime(9 * 60_000 - 1);
      expect(sealed()).toBe(2);
      // Fifteen minutes after start-up: the purge runs; the first key has waited 15 minutes, the second 9.
      vi.advanceTimersByTime(1);
      await vi.waitFor(() => expect(sealed()).toBe(1), { timeout: 5000, interval: 20 });
    } finally {
      rows.close();
    }
  });
});
