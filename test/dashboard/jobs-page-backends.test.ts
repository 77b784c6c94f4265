/**
 * The Jobs page's actions and labels on SQLite and, when DATABASE_URL is set, PostgreSQL: Cancel (the
 * API's cancel path), paging through every job, "PDF deleted" against "PDF expired", no webhook for a
 * canceled job, ids that are not ids (404, never 500) and notices that never echo the address.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { newTimeOrderedId } from '../../src/ids.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { DATABASE_URL } from '../helpers/backends.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { queueJob } from '../helpers/webhook-jobs.js';
import { type FreshDatabase, freshDatabase } from '../scale/backends.js';
import { signUp } from './client.js';

let pgDb: FreshDatabase | undefined;
const backends = [
  { name: 'sqlite', enabled: true, env: async () => ({}), cleanup: async () => {} },
  {
    name: 'postgres',
    enabled: Boolean(DATABASE_URL),
    env: async (): Promise<Record<string, string>> => {
      pgDb = await freshDatabase(DATABASE_URL as string, 'pw_jobsui');
      return { DATABASE_URL: pgDb.url };
    },
    cleanup: async () => pgDb?.drop(),
  },
];

const PDF = Buffer.from('%PDF-1.7\n% stand-in\n%%EOF\n');

function cardOf(body: string, jobId: string): string {
  const start = body.indexOf(`<li class="job" data-job-id="${jobId}">`);
  expect(start, `job ${jobId} listed`).toBeGreaterThan(-1);
  const next = body.indexOf('<li class="job" ', start + 1);
  return body.slice(start, next === -1 ? body.indexOf('</ul>', start) : next);
}

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`Jobs page on ${backend.name}`, () => {
    let core: CoreDeps;
    let app: FastifyInstance;
    let n = 0;
    const email = () => `jobsui-${backend.name}-${++n}@example.com`;

    beforeAll(async () => {
      core = await createTestCore(await backend.env());
      app = await buildDashboardApp(core);
    });
    afterAll(async () => {
      await app?.close();
      if (core) await closeTestCore(core);
      await backend.cleanup();
    });

    async function accountOf(address: string): Promise<string> {
      const account = await core.accounts.findByEmail(address);
      if (!account) throw new Error(`no account ${address}`);
      return account.id;
    }

    /** A queued job of the account (submitted `agoMs` ago), with a webhook. */
    async function queuedJob(accountId: string, agoMs = 0, reference: string | null = null): Promise<string> {
      const at = Date.now() - agoMs;
      return queueJob(core.store, accountId, { id: newTimeOrderedId('job', at), createdAt: at, reference });
    }

    /**
     * A job that succeeded with a PDF kept until `expiresAt`, in this dashboard's result store or, with
     * `elsewhere`, recorded in a result store it does not share (file results on another machine's disk).
     */
    async function succeededJob(accountId: string, expiresAt: number, elsewhere?: string): Promise<string> {
      const id = await queuedJob(accountId);
      // Claims are fair across accounts; this account's job is the one this test queued last.
      const claimed = await core.store.claimJob('test-worker', Date.now(), { leaseMs: 60_000, maxAttempts: 3 });
      expect(claimed?.id).toBe(id);
      const key = `${accountId}/${id}.pdf`;
      if (!elsewhere) await core.results.put(key, PDF);
      await core.store.finishJob(id, 'test-worker', Date.now(), {
        pdf: { key, bytes: PDF.length, pages: 1, expiresAt, store: elsewhere ?? core.results.id },
      });
      return id;
    }

    it('Download gives the PDF; one kept in a result store this dashboard does not share is 503 saying so, never "expired"', async () => {
      const address = email();
      const client = await signUp(app, address);
      const accountId = await accountOf(address);
      const here = await succeededJob(accountId, Date.now() + 3_600_000);
      const pdf = await client.get(`/jobs/${here}/pdf`);
      expect(pdf.statusCode).toBe(200);
      expect(pdf.headers['content-type']).toBe('application/pdf');
      expect(pdf.rawPayload.equals(PDF)).toBe(true);

      const there = await succeededJob(accountId, Date.now() + 3_600_000, 'file:/srv/other-machine/results');
      const res = await client.get(`/jobs/${there}/pdf`);
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body).toContain('PDF not reachable from here');
      expect(res.body).toContain('RESULT_STORE is not shared by every instance');
      expect(res.body).not.toContain('expired');
    });

    it('Cancel stops a queued job through the API cancel path; the card then says no webhook is sent', async () => {
      const address = email();
      const client = await signUp(app, address);
      const jobId = await queuedJob(await accountOf(address), 0, 'to-cancel');
      const before = cardOf((await client.get('/jobs')).body, jobId);
      expect(before).toContain('Queued');
      expect(before).toContain(`href="/jobs/${jobId}/cancel"`);
      expect(before).toContain('Cancel job…');
      // The link asks first: the question names the job and what canceling a queued one means.
      const question = await client.get(`/jobs/${jobId}/cancel`);
      expect(question.body).toContain('Cancel this job?');
      expect(question.body).toContain('It has not started: it will not be rendered. No webhook is sent for a canceled job.');
      expect((await core.store.findJob(jobId))?.status).toBe('queued');
      // Without the CSRF token nothing happens; another account gets 404.
      expect((await client.post(`/jobs/${jobId}/cancel`, { _csrf: 'wrong' })).statusCode).toBe(403);
      expect((await (await signUp(app, email())).submit('/jobs', `/jobs/${jobId}/cancel`, {})).statusCode).toBe(404);
      expect((await core.store.findJob(jobId))?.status).toBe('queued');

      const res = await client.submit(`/jobs/${jobId}/cancel`, `/jobs/${jobId}/cancel`, {});
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/jobs?notice=canceled');
      const page = await client.get('/jobs?notice=canceled');
      expect(page.body).toContain('The job was canceled');
      const after = cardOf(page.body, jobId);
      expect(after).toContain('Canceled');
      expect(after).not.toContain('Cancel job');
      expect(after).toContain('No webhook is sent for a canceled job');
      expect(after).not.toContain('No delivery attempt yet');
      // The job object of the API agrees.
      expect((await core.store.findJob(jobId))?.status).toBe('canceled');
      // Pressed again (a second tab): nothing to cancel, said so.
      const again = await client.post(`/jobs/${jobId}/cancel`, { _csrf: client.csrf() });
      expect(again.headers.location).toBe('/jobs?notice=cancel-too-late');
    });

    it('a PDF deleted through the API says "PDF deleted", an expired one "PDF expired", for as long as the row lives', async () => {
      const address = email();
      const client = await signUp(app, address);
      const accountId = await accountOf(address);
      const deleted = await succeededJob(accountId, Date.now() + 3_600_000);
      const expired = await succeededJob(accountId, Date.now() + 300);
      // DELETE /v1/jobs/{id} on a finished job: the API's own path.
      const queue = new JobQueue({ store: core.store, results: core.results, maxQueuedPerAccount: 10 });
      expect((await queue.cancel(accountId, deleted)).pdf_key).toBeNull();
      await new Promise((r) => setTimeout(r, 400));
      const body = (await client.get('/jobs')).body;
      expect(cardOf(body, deleted)).toContain('PDF deleted');
      expect(cardOf(body, deleted)).not.toContain('PDF expired');
      expect(cardOf(body, expired)).toContain('PDF expired');
      // After the retention sweep, and after the deleted one's expiry would have passed, still apart.
      expect(await queue.sweepExpired()).toBeGreaterThanOrEqual(1);
      const swept = (await client.get('/jobs')).body;
      expect(cardOf(swept, expired)).toContain('PDF expired');
      expect(cardOf(swept, deleted)).toContain('PDF deleted');
      expect((await client.get(`/jobs/${deleted}/pdf`)).statusCode).toBe(404);
    });

    it('pages through every job, newest first, 50 to a page', async () => {
      const address = email();
      const client = await signUp(app, address);
      const accountId = await accountOf(address);
      const ids: string[] = [];
      // 57 jobs, one a second apart in the past, so the newest is the last made.
      for (let i = 57; i >= 1; i--) ids.push(await queuedJob(accountId, i * 1000, `job-${58 - i}`));
      const newestFirst = [...ids].reverse();
      const listed = (body: string) => [...body.matchAll(/<li class="job" data-job-id="(job_[0-9a-f]{32})">/g)].map((m) => m[1]);
      const first = await client.get('/jobs');
      expect(listed(first.body)).toEqual(newestFirst.slice(0, 50));
      expect(first.body).not.toContain('Newest jobs');
      const older = /href="(\/jobs\?cursor=[^"]+)" rel="next">Older jobs/.exec(first.body)?.[1];
      expect(older).toBeDefined();
      const second = await client.get((older as string).replaceAll('&amp;', '&'));
      expect(second.statusCode).toBe(200);
      expect(listed(second.body)).toEqual(newestFirst.slice(50));
      expect(second.body).toContain('href="/jobs">Newest jobs');
      expect(second.body).not.toContain('rel="next"');
      // A cursor that is not one of ours shows the first page, never an error.
      expect(listed((await client.get('/jobs?cursor=%00garbage')).body)).toEqual(newestFirst.slice(0, 50));
    });

    it('ids that are not ids are 404, never 500; notices come from a fixed set, never from the address', async () => {
      const client = await signUp(app, email());
      for (const url of [
        '/jobs/job_%00/pdf',
        '/jobs/job_%E2%80%AE/pdf',
        `/jobs/job_${'f'.repeat(33)}/pdf`,
        '/jobs/..%2F..%2Fetc/pdf',
      ]) {
        expect((await client.get(url)).statusCode, url).toBe(404);
      }
      await client.get('/jobs');
      const csrf = client.csrf();
      for (const action of ['cancel', 'redeliver']) {
        expect((await client.post(`/jobs/job_%00/${action}`, { _csrf: csrf })).statusCode, action).toBe(404);
      }
      expect((await client.post('/keys/key_%00/revoke', { _csrf: csrf })).statusCode).toBe(404);
      for (const query of ['redelivered=<b>owned</b>', 'notice=<b>owned</b>', 'rotated', 'notice=constructor']) {
        const page = await client.get(`/jobs?${query}`);
        expect(page.statusCode).toBe(200);
        expect(page.body).not.toContain('owned');
        expect(page.body).not.toContain('class="alert');
      }
    });
  });
}
