/**
 * A store written by the previous release is served by this one: the fixtures under
 * test/fixtures/upgrade/ were written by that release's own CLI and API (PROVENANCE.md there), and
 * this release opens them as an operator's upgrade would, migrating on start.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type CoreDeps, closeCore, createCore } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { READS_PER_LIMIT } from '../../src/app/service-auth.js';
import { loadConfig } from '../../src/config.js';
import { WebhookSecrets } from '../../src/jobs/webhook-secrets.js';
import { DATABASE_URL, uniqueName } from '../helpers/backends.js';
import { dropSchema } from '../helpers/store-backends.js';
import { jobRequest, waitForJob } from '../jobs/helpers.js';
import { pdfText } from '../render/pdf-tools.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/upgrade/', import.meta.url));

interface Fixture {
  commit: string;
  writtenAt: string;
  schema?: string;
  keys: { aliceRender: string; aliceRevoked: string; aliceMetadata: string; bobRender: string };
  webhookSecret: string;
  session: string;
  renderId: string;
  jobs: Array<{ id: string; title: string; pdfBytes: number }>;
  queued: Array<{ id: string; title: string }>;
}

/** Restores the PostgreSQL dump into a fresh schema of its own; returns a DATABASE_URL that uses it. */
async function restorePostgres(dir: string, fixture: Fixture, schema: string): Promise<string> {
  const dump = fs
    .readFileSync(path.join(dir, 'store.sql'), 'utf8')
    .split('\n')
    // psql's own commands (\restrict) are not SQL.
    .filter((line) => !line.startsWith('\\'))
    .join('\n')
    .replaceAll(fixture.schema ?? '', schema);
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(dump);
  } finally {
    await client.end();
  }
  return `${DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

for (const backend of ['sqlite', 'postgres'] as const) {
  const source = path.join(FIXTURES, backend);
  const fixture = JSON.parse(fs.readFileSync(path.join(source, 'fixture.json'), 'utf8')) as Fixture;

  describe.runIf(backend === 'sqlite' || DATABASE_URL)(`a ${backend} store written by ${fixture.commit.slice(0, 7)}`, () => {
    // Made in beforeAll: a suite skipped (no DATABASE_URL) runs no afterAll to remove it.
    let dataDir = '';
    const schema = uniqueName('upgrade');
    let core: CoreDeps;
    let render: FastifyInstance;
    let dashboard: FastifyInstance;

    beforeAll(async () => {
      // Served a minute after it was written, as an upgrade that stops one release and starts the
      // next: the dashboard session (2 h idle) and the PDFs (24 h) are still within their lifetimes.
      vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
      vi.setSystemTime(Date.parse(fixture.writtenAt) + 60_000);
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `pw-upgrade-${backend}-`));
      fs.cpSync(path.join(source, 'results'), path.join(dataDir, 'results'), { recursive: true });
      let databaseUrl = '';
      if (backend === 'sqlite') fs.copyFileSync(path.join(source, 'pageworks.sqlite'), path.join(dataDir, 'pageworks.sqlite'));
      else databaseUrl = await restorePostgres(source, fixture, schema);
      core = await createCore(
        loadConfig({ PAGEWORKS_DATA_DIR: dataDir, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', RENDER_CONCURRENCY: '2' }),
      );
      render = await buildRenderApp(core);
      dashboard = await buildDashboardApp(core);
    }, 120_000);

    afterAll(async () => {
      await render?.close();
      await dashboard?.close();
      if (core) await closeCore(core);
      vi.useRealTimers();
      if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
      if (backend === 'postgres') await dropSchema(schema);
    });

    it('keys still authenticate, and the revoked one is refused', async () => {
      for (const key of [fixture.keys.aliceRender, fixture.keys.bobRender]) {
        expect((await jobRequest(render, key, 'GET', '/v1/jobs')).statusCode).toBe(200);
      }
      const revoked = await jobRequest(render, fixture.keys.aliceRevoked, 'GET', '/v1/jobs');
      expect(revoked.statusCode).toBe(401);
      expect(await core.keys.verify(fixture.keys.aliceMetadata, 'metadata')).toMatchObject({ ok: true });
    });

    it('per-account limits are kept', async () => {
      const res = await jobRequest(render, fixture.keys.aliceRender, 'GET', '/v1/jobs');
      // A read (listing jobs) is allowed READS_PER_LIMIT times the account's limit of 123.
      expect(res.headers['ratelimit-policy']).toBe(`"render-reads";q=${123 * READS_PER_LIMIT};w=60`);
      expect((await core.accounts.findByEmail('bob@example.com'))?.limits).toEqual({ render: null, metadata: 45 });
    });

    it("finished jobs' PDFs download, byte for byte as written", async () => {
      for (const job of fixture.jobs) {
        const key = job.title === 'Invoice 1' ? fixture.keys.aliceRender : fixture.keys.bobRender;
        const meta = (await jobRequest(render, key, 'GET', `/v1/jobs/${job.id}`)).json();
        expect(meta.status).toBe('succeeded');
        const pdf = await jobRequest(render, key, 'GET', `/v1/jobs/${job.id}/pdf`);
        expect(pdf.statusCode).toBe(200);
        expect(pdf.headers['content-type']).toBe('application/pdf');
        expect(pdf.rawPayload.length).toBe(job.pdfBytes);
        expect(pdfText(pdf.rawPayload)).toContain(job.title);
      }
    });

    it('queued jobs then run and succeed', async () => {
      for (const job of fixture.queued) {
        const key = job.title === 'Queued 3' ? fixture.keys.aliceRender : fixture.keys.bobRender;
        const done = await waitForJob(render, key, job.id, 90_000);
        expect(done.status).toBe('succeeded');
        const pdf = await jobRequest(render, key, 'GET', `/v1/jobs/${job.id}/pdf`);
        expect(pdf.statusCode).toBe(200);
        expect(pdfText(pdf.rawPayload)).toContain(job.title);
      }
    }, 200_000);

    it('the webhook secret is unchanged, and deliveries are signed with it', async () => {
      const alice = await core.accounts.findByEmail('alice@example.com');
      // Stored in clear by that release, it stays as it is until `pageworks secrets rotate` seals it.
      expect(await core.store.findWebhookSecret(alice?.id ?? '')).toBe(fixture.webhookSecret);
      expect(await new WebhookSecrets(core.store, core.secrets?.box).signing(alice?.id ?? '')).toEqual([fixture.webhookSecret]);
    });

    it('the dashboard session is still signed in', async () => {
      const res = await dashboard.inject({ method: 'GET', url: '/keys', cookies: { pw_session: fixture.session } });
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('alice@example.com');
      expect(res.body).toContain('leaked');
    });

    it('the render log is readable', async () => {
      const res = await jobRequest(render, fixture.keys.aliceRender, 'GET', `/v1/renders/${fixture.renderId}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ id: fixture.renderId, status: 'succeeded' });
    });
  });
}
