import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { newId } from '../../src/ids.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { queueJob } from '../helpers/webhook-jobs.js';
import { type FormClient, signUp } from './client.js';

let core: CoreDeps;
let app: FastifyInstance;
let n = 0;
const email = () => `jobs${++n}@example.com`;
const PDF = Buffer.from('%PDF-1.7\n% a stand-in PDF for the download route\n%%EOF\n');

beforeAll(async () => {
  core = await createTestCore();
  app = await buildDashboardApp(core);
});
afterAll(async () => {
  await app.close();
  await closeTestCore(core);
});

async function accountIdOf(address: string): Promise<string> {
  const account = await core.accounts.findByEmail(address);
  if (!account) throw new Error(`no account ${address}`);
  return account.id;
}

/** A job of the account that succeeded with a stored PDF and a webhook URL, as the worker leaves it. */
async function succeededJob(accountId: string, reference: string | null): Promise<string> {
  const now = Date.now();
  const id = await queueJob(core.store, accountId, { createdAt: now - 5000, reference });
  const claimed = await core.store.claimJob('test-worker', now - 4000, { leaseMs: 60_000, maxAttempts: 3 });
  expect(claimed?.id).toBe(id);
  const key = `${accountId}/${id}.pdf`;
  await core.results.put(key, PDF);
  await core.store.finishJob(id, 'test-worker', now - 1500, {
    pdf: { key, bytes: PDF.length, pages: 3, expiresAt: now + 3_600_000, store: core.results.id },
  });
  return id;
}

function cardOf(body: string, jobId: string): string {
  const start = body.indexOf(`<li class="job" data-job-id="${jobId}">`);
  expect(start, `job ${jobId} listed`).toBeGreaterThan(-1);
  const next = body.indexOf('<li class="job" ', start + 1);
  return body.slice(start, next === -1 ? body.indexOf('</section>', start) : next);
}

describe('Jobs page', () => {
  it('lists the account’s jobs with status, reference, duration, size, download and webhook attempts', async () => {
    const address = email();
    const client = await signUp(app, address);
    const accountId = await accountIdOf(address);
    const jobId = await succeededJob(accountId, 'invoice-2025-0042');
    await core.store.insertWebhookDelivery({
      id: newId('whd'),
      jobId,
      accountId,
      webhookId: `msg_${jobId}`,
      attempt: 1,
      statusCode: 502,
      error: 'receiver answered 502',
      durationMs: 40,
      createdAt: Date.now() - 1000,
    });
    const page = await client.get('/jobs');
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toContain('no-store');
    const card = cardOf(page.body, jobId);
    expect(card).toContain('invoice-2025-0042');
    expect(card).toContain('Succeeded');
    expect(card).toContain('2.5 s');
    expect(card).toContain(`${PDF.length} B · 3 pages`);
    expect(card).toContain(`href="/jobs/${jobId}/pdf"`);
    // Its id leads to its render report.
    expect(card).toContain(`<a href="/renders/${jobId}"`);
    expect(card).toContain('Webhook: pending · 1 attempt');
    expect(card).toContain('502');
    expect(card).toContain('receiver answered 502');
    expect(card).toContain(`action="/jobs/${jobId}/redeliver"`);
    // Another account sees none of it.
    const other = await signUp(app, email());
    expect((await other.get('/jobs')).body).not.toContain(jobId);
  });

  it('downloads the PDF from the result store, for its owner only', async () => {
    const address = email();
    const client = await signUp(app, address);
    const jobId = await succeededJob(await accountIdOf(address), 'report 7');
    const res = await client.get(`/jobs/${jobId}/pdf`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe('attachment; filename="report 7.pdf"');
    expect(res.rawPayload.equals(PDF)).toBe(true);
    const other = await signUp(app, email());
    expect((await other.get(`/jobs/${jobId}/pdf`)).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: `/jobs/${jobId}/pdf` })).statusCode).toBe(303);
  });

  it('Redeliver needs the CSRF token and queues the webhook again, once a minute; not for another account', async () => {
    const address = email();
    const client = await signUp(app, address);
    const jobId = await succeededJob(await accountIdOf(address), null);
    // As if the dispatcher had given up.
    await core.store.settleWebhook(jobId, { state: 'exhausted', attempts: 8, nextAt: null }, Date.now());
    await client.get('/jobs');
    expect((await client.post(`/jobs/${jobId}/redeliver`, { _csrf: 'wrong' })).statusCode).toBe(403);
    expect((await core.store.findJob(jobId))?.webhook_state).toBe('exhausted');
    const other = await signUp(app, email());
    expect((await other.submit('/jobs', `/jobs/${jobId}/redeliver`, {})).statusCode).toBe(404);
    const res = await client.submit('/jobs', `/jobs/${jobId}/redeliver`, {});
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/jobs?notice=redelivered');
    const row = await core.store.findJob(jobId);
    expect(row?.webhook_state).toBe('pending');
    expect(row?.webhook_attempts).toBe(0);
    expect((await client.get(String(res.headers.location))).body).toContain('queued for delivery again');
    // Pressed again within the minute: refused, and the page says why.
    const again = await client.submit('/jobs', `/jobs/${jobId}/redeliver`, {});
    expect(again.headers.location).toBe('/jobs?notice=redeliver-too-soon');
    expect((await client.get(String(again.headers.location))).body).toContain('Redeliver works once a minute per job');
    expect(client.body).toContain('Once a minute per job');

    // An attempt in flight (a dispatcher holds the lease): Redeliver waits for it, and says so.
    const busy = await succeededJob(await accountIdOf(address), null);
    const now = Date.now();
    await core.store.settleWebhook(jobId, { state: 'delivered', attempts: 1, nextAt: null }, now);
    // (Other tests' pending events are leased too; no dispatcher runs here.)
    expect((await core.store.claimDueWebhooks(now, now + 60_000, 50, 2)).map((j) => j.id)).toContain(busy);
    const waits = await client.submit('/jobs', `/jobs/${busy}/redeliver`, {});
    expect(waits.headers.location).toBe('/jobs?notice=redeliver-waits');
    expect((await client.get('/jobs?notice=redeliver-waits')).body).toContain('it is sent again once that attempt ends');
  });

  it('reveals the signing secret only on a POST with the CSRF token, and rotates it', async () => {
    const client: FormClient = await signUp(app, email());
    const list = await client.get('/jobs');
    expect(list.body).not.toContain('whsec_');
    expect((await client.post('/jobs/webhook-secret/reveal', { _csrf: 'nope' })).statusCode).toBe(403);
    const shown = await client.submit('/jobs', '/jobs/webhook-secret/reveal', {});
    expect(shown.statusCode).toBe(200);
    const secret = /whsec_[A-Za-z0-9+/=]+/.exec(shown.body)?.[0];
    expect(secret).toBeDefined();
    // The same secret on a second reveal: it is created once and kept.
    expect((await client.submit('/jobs', '/jobs/webhook-secret/reveal', {})).body).toContain(secret);
    expect((await client.post('/jobs/webhook-secret/rotate', { _csrf: 'nope' })).statusCode).toBe(403);
    // "Rotate secret…" is a link to a confirmation page; nothing changes until its form is sent.
    expect((await client.get('/jobs')).body).toContain('href="/jobs/webhook-secret/rotate"');
    const confirm = await client.get('/jobs/webhook-secret/rotate');
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('Rotate the webhook secret?');
    expect(confirm.body).toContain('For the next 24 hours every delivery carries two signatures');
    expect((await client.submit('/jobs', '/jobs/webhook-secret/reveal', {})).body).toContain(secret);
    const rotated = await client.submit('/jobs/webhook-secret/rotate', '/jobs/webhook-secret/rotate', {
      replaces: /name="replaces" value="([^"]+)"/.exec(confirm.body)?.[1] ?? '',
    });
    // The new secret is in this answer, once, with until when the old one still signs.
    expect(rotated.statusCode).toBe(200);
    const next = /whsec_[A-Za-z0-9+/=]+/.exec(rotated.body)?.[0];
    expect(next).toMatch(/^whsec_/);
    expect(next).not.toBe(secret);
    expect(rotated.body).toContain('This is the only time it is shown');
    expect(rotated.body).toMatch(/Until .+ every delivery carries a signature with the old secret too/);
    expect((await client.get('/jobs')).body).not.toContain('whsec_');
    // The same form sent again (a reload of the answer, a second tab): nothing rotates, no secret is shown.
    const resent = await client.post('/jobs/webhook-secret/rotate', {
      _csrf: client.csrf(),
      replaces: /name="replaces" value="([^"]+)"/.exec(confirm.body)?.[1] ?? '',
    });
    expect(resent.statusCode).toBe(303);
    expect(resent.headers.location).toBe('/jobs?notice=rotated-already');
    expect((await client.get('/jobs?notice=rotated-already')).body).toContain('The secret was not rotated again');
    expect(/whsec_[A-Za-z0-9+/=]+/.exec((await client.submit('/jobs', '/jobs/webhook-secret/reveal', {})).body)?.[0]).toBe(next);
    // Both are in the account's activity log, from the dashboard.
    const activity = (await client.get('/activity')).body;
    expect(activity).toContain('Webhook signing secret rotated');
    expect(activity).toContain('Webhook signing secret revealed');
    expect(activity).toMatch(
      /Webhook signing secret rotated<\/strong> <span class="activity-detail">· the old secret signs too until \d{4}-\d\d-\d\dT/,
    );
  });

  it('a second rotation within the day: the confirmation says the secret from before the first stops verifying now', async () => {
    const client = await signUp(app, email());
    await client.submit('/jobs', '/jobs/webhook-secret/reveal', {});
    const first = await client.get('/jobs/webhook-secret/rotate');
    expect(first.body).toContain('receivers that still hold the old secret keep verifying');
    expect(first.body).not.toContain('stops verifying now');
    const replaces = (body: string) => /name="replaces" value="([^"]+)"/.exec(body)?.[1] ?? '';
    const rotated = await client.submit('/jobs/webhook-secret/rotate', '/jobs/webhook-secret/rotate', {
      replaces: replaces(first.body),
    });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.body).not.toContain('stops verifying');

    const again = await client.get('/jobs/webhook-secret/rotate');
    const text = again.body.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ');
    expect(text).toMatch(
      /The last rotation \(.+\) is still in its 24 hours\. Rotating again ends them: the secret from before that rotation stops verifying now, and receivers that still hold only it reject every delivery\./,
    );
    expect(text).not.toContain('receivers that still hold the old secret keep verifying');
    expect(text).toContain('receivers that hold the current secret keep verifying');
    const second = await client.submit('/jobs/webhook-secret/rotate', '/jobs/webhook-secret/rotate', {
      replaces: replaces(again.body),
    });
    expect(second.statusCode).toBe(200);
    expect(second.body.replace(/\s+/g, ' ')).toContain('The secret from before the previous rotation no longer signs.');
  });

  it('says on the usage page that jobs count as render requests', async () => {
    const client = await signUp(app, email());
    expect((await client.get('/usage')).body).toContain(
      'a job counts as one render request when it is submitted, an assembly job one for each of its parts.',
    );
  });
});
