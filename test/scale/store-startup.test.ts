import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { openPostgresStore, StoreUnavailableError } from '../../src/store/postgres.js';
import type { Store } from '../../src/store/store.js';
import { DATABASE_URL } from '../helpers/backends.js';
import { type FreshDatabase, freshDatabase, sleep, TcpForwarder } from './backends.js';

const silent = { error: () => {}, info: () => {} };

describe.skipIf(!DATABASE_URL)('PostgreSQL store started while the database is unreachable', () => {
  let db: FreshDatabase;
  let forwarder: TcpForwarder;
  let store: Store | undefined;

  beforeAll(async () => {
    db = await freshDatabase(DATABASE_URL!, 'pw_startup');
    const real = new URL(DATABASE_URL!);
    forwarder = await TcpForwarder.create({ host: real.hostname, port: Number(real.port || 5432) }, false);
  });
  afterAll(async () => {
    await store?.close();
    await forwarder?.close();
    await db?.drop();
  });

  it('without background start (the CLI), fails at once with the connection error', async () => {
    const started = Date.now();
    await expect(openPostgresStore(db.urlVia(forwarder.port))).rejects.toThrow(/ECONNREFUSED/);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('with background start, comes up, fails calls fast with a clear error, then migrates when the database appears', async () => {
    store = await openPostgresStore(db.urlVia(forwarder.port), {
      background: { log: silent, firstDelayMs: 100, maxDelayMs: 300 },
    });
    const started = Date.now();
    await expect(store.ping()).rejects.toThrow(StoreUnavailableError);
    await expect(store.findKeyByHash('x')).rejects.toThrow(/database not reachable or not migrated yet \(.*ECONNREFUSED.*\)/);
    expect(Date.now() - started).toBeLessThan(100);
    expect(await db.query("select 1 from information_schema.tables where table_name = 'accounts'")).toHaveLength(0);

    await forwarder.open();
    const until = Date.now() + 10_000;
    for (;;) {
      try {
        await store.ping();
        break;
      } catch (err) {
        if (Date.now() > until) throw err;
        await sleep(100);
      }
    }
    expect(await db.query("select 1 from information_schema.tables where table_name = 'accounts'")).toHaveLength(1);
    expect(await store.countAccounts()).toBe(0);
  });

  it('a broken configuration (wrong database name) is not retried: it fails the start', async () => {
    const url = new URL(db.url);
    url.pathname = '/pw_no_such_database_here';
    await expect(openPostgresStore(url.toString(), { background: { log: silent } })).rejects.toThrow(/does not exist/);
  });
});

// Kysely's migrator looked for its table in every schema of the database: another application's
// `kysely_migration` in a schema of its own counted as the store's, and the start failed with
// `relation "kysely_migration" does not exist`, since that table is not on the store's search path.
describe.skipIf(!DATABASE_URL)('PostgreSQL store started in a database another kysely application shares', () => {
  let db: FreshDatabase;
  let store: Store | undefined;

  beforeAll(async () => {
    db = await freshDatabase(DATABASE_URL!, 'pw_shared');
    await db.query('create schema billing');
    await db.query('create table billing.kysely_migration (name varchar(255) primary key, timestamp varchar(255) not null)');
    await db.query("insert into billing.kysely_migration values ('2024_01_invoices', '2024-01-01T00:00:00.000Z')");
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it('migrates its own schema, leaves the other alone, and starts again without migrating', async () => {
    store = await openPostgresStore(db.url);
    await store.ping();
    const ours = await db.query<{ n: string }>('select count(*) as n from public.kysely_migration');
    expect(Number(ours[0].n)).toBe(Object.keys(MIGRATIONS).length);
    expect(
      await db.query("select 1 from information_schema.tables where table_schema = 'public' and table_name = 'accounts'"),
    ).toHaveLength(1);
    expect(await db.query('select name from billing.kysely_migration')).toEqual([{ name: '2024_01_invoices' }]);
    await store.close();
    store = await openPostgresStore(db.url);
    expect(await db.query<{ n: string }>('select count(*) as n from public.kysely_migration')).toEqual(ours);
  });
});
