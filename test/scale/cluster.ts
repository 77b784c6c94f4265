import http from 'node:http';
import type net from 'node:net';
import { AccountService } from '../../src/accounts/accounts.js';
import { KeyService } from '../../src/accounts/keys.js';
import type { ApiService } from '../../src/config.js';
import { SQLITE_FILE } from '../../src/store/open-store.js';
import { openPostgresStore } from '../../src/store/postgres.js';
import { openSqliteStore } from '../../src/store/sqlite.js';
import type { Store } from '../../src/store/store.js';
import type { Instance } from './instances.js';

/** Accounts and keys written straight into a (fresh) database, as the dashboard or CLI would. */
export class Seeder {
  private constructor(private readonly store: Store) {}

  static async open(databaseUrl: string): Promise<Seeder> {
    return new Seeder(await openPostgresStore(databaseUrl));
  }

  /** On the embedded store of data dir `dataDir` (made and migrated here; close before an instance writes to it at will). */
  static async openEmbedded(dataDir: string): Promise<Seeder> {
    return new Seeder(await openSqliteStore(dataDir, SQLITE_FILE));
  }

  /** A new account with `limit` requests per minute on `service` and one key for it. */
  async key(service: ApiService, limit: number | null, email = `u${Math.random().toString(16).slice(2)}@example.com`) {
    const accounts = new AccountService(this.store);
    const account = (await accounts.findByEmail(email)) ?? (await accounts.create(email));
    if (limit !== null) await accounts.setLimit(account.id, service, limit);
    const { key } = await new KeyService(this.store).create(account.id, service, 'scale test');
    return { accountId: account.id, key };
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

/** A small HTML page on 127.0.0.1 for metadata instances to fetch (EGRESS_ALLOW=127.0.0.1/32). */
export async function startTargetPage(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      '<!doctype html><html><head><title>Scale target</title><meta name="description" content="a page"></head><body>hi</body></html>',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/page`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** What a client sees of one API call. */
export interface Answer {
  status: number;
  body: string;
  headers: Headers;
  ms: number;
}

/** One authenticated call to an instance: GET /v1/fetch on metadata, a tiny POST /v1/render on render. */
export async function call(instance: Instance, key: string, target = 'http://127.0.0.1:9/'): Promise<Answer> {
  const started = Date.now();
  const res =
    instance.service === 'metadata'
      ? await fetch(`${instance.url}/v1/fetch?url=${encodeURIComponent(target)}`, { headers: { 'x-api-key': key } })
      : await fetch(`${instance.url}/v1/render`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ html: '<p>scale</p>' }),
        });
  const body = instance.service === 'render' && res.ok ? `${(await res.arrayBuffer()).byteLength} bytes` : await res.text();
  return { status: res.status, body, headers: res.headers, ms: Date.now() - started };
}

/** GET a path on an instance and parse the JSON answer. */
export async function getJson(instance: Instance, path: string): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${instance.url}${path}`);
  return { status: res.status, json: await res.json() };
}

/** Polls `check` until it returns true or `timeoutMs` passes; returns whether it did. */
export async function eventually(check: () => Promise<boolean>, timeoutMs: number, everyMs = 200): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return true;
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
