/**
 * One document cannot stop the render log for everybody: after documents that rewrite their report state
 * (numbers made text, numbers made 1e308), another account's render made afterwards is in the log once
 * the service got SIGTERM and started again, on SQLite and on PostgreSQL.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { type CoreDeps, closeCore, createCore } from '../../src/app/core.js';
import { loadConfig } from '../../src/config.js';
import { DATABASE_URL } from '../helpers/backends.js';
import { type FreshDatabase, freshDatabase } from '../scale/backends.js';
import { Instance } from '../scale/instances.js';
import { attackDocument } from './report-attacks.js';

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

/** A key of a new account, made straight in the store the instance uses. */
async function newKey(core: CoreDeps, email: string): Promise<string> {
  const account = await core.accounts.create(email);
  return (await core.keys.create(account.id, 'render', 'test')).key;
}

async function render(instance: Instance, key: string, html: string): Promise<Response> {
  return fetch(`${instance.url}/v1/render`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ html }),
  });
}

const backends = [
  { name: 'sqlite', enabled: true },
  { name: 'postgres', enabled: Boolean(DATABASE_URL) },
];

describe.each(backends)('on $name', ({ name, enabled }) => {
  it.skipIf(!enabled)(
    "another account's render after the attack is in the log after SIGTERM and a restart",
    async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-report-restart-'));
      cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
      let db: FreshDatabase | undefined;
      if (name === 'postgres') {
        db = await freshDatabase(DATABASE_URL!, 'pw_report');
        cleanups.push(() => db!.drop());
      }
      const env = { PAGEWORKS_DATA_DIR: dataDir, ...(db ? { DATABASE_URL: db.url } : {}), RENDER_RATE_LIMIT: '1000' };
      let instance = await Instance.start('render', env);
      cleanups.push(async () => instance.kill());
      const core = await createCore(loadConfig({ ...env, LOG_LEVEL: 'silent' }), pino({ level: 'silent' }));
      let victimRender = '';
      let victimKey = '';
      try {
        const attackerKey = await newKey(core, `attacker-${name}@example.com`);
        victimKey = await newKey(core, `victim-${name}@example.com`);
        for (const attack of ['text', 'huge'] as const) {
          const res = await render(instance, attackerKey, attackDocument(attack));
          expect(res.status).toBe(200);
          expect(res.headers.get('x-render-warnings')).toMatch(/^\d+$/);
        }
        // Give the log a flush of the attacker's records alone, as a busy instance would.
        await new Promise((r) => setTimeout(r, 1500));
        const res = await render(instance, victimKey, '<h1>Victim</h1>');
        expect(res.status).toBe(200);
        victimRender = res.headers.get('x-render-id') ?? '';
      } finally {
        await closeCore(core);
      }
      await instance.stop('SIGTERM');
      instance = await Instance.start('render', env);
      const read = await fetch(`${instance.url}/v1/renders/${victimRender}`, {
        headers: { authorization: `Bearer ${victimKey}` },
      });
      const output = instance.output;
      await instance.stop('SIGTERM');
      expect(read.status, output).toBe(200);
      expect(await read.json()).toMatchObject({ id: victimRender, status: 'succeeded', warnings: [] });
    },
    180_000,
  );
});
