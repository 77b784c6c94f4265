/**
 * A URL part's `user:password@` never reaches what anyone sees: the API error of a failed part, the
 * render record (GET /v1/renders/{id}), the dashboard's render page, a job's error and webhook, and the service's
 * log. The part's server is on 127.0.0.1 (EGRESS_ALLOW): one address answers 404, one answers HTML.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { redactUrl } from '../../src/redact-url.js';
import { signUp } from '../dashboard/client.js';
import { closeTestCore, createTestCore } from '../helpers/core.js';
import { noDns } from '../helpers/render.js';
import { type Delivery, startWebhookSink } from '../helpers/webhook-sink.js';
import { jobRequest, submitJob, waitForJob } from '../jobs/helpers.js';
import { postAssemble } from './helpers.js';

const USER = 'partuser';
const PASSWORD = 'S3cret-part-pw-91';
const logs: Array<Record<string, unknown>> = [];
let core: CoreDeps;
let app: FastifyInstance;
let dashboard: FastifyInstance;
let server: http.Server;
let base: string;
let key: string;
let client: Awaited<ReturnType<typeof signUp>>;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/page.pdf') res.writeHead(200, { 'content-type': 'application/pdf' }).end('<html>not a pdf</html>');
    else res.writeHead(404).end('missing');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  core = await createTestCore({ EGRESS_ALLOW: '127.0.0.1/32', RENDER_RATE_LIMIT: '1000', LOG_LEVEL: 'debug' }, logs);
  app = await buildRenderApp(core, { lookup: noDns });
  dashboard = await buildDashboardApp(core);
  client = await signUp(dashboard, 'url-credentials@example.com');
  const account = await core.accounts.findByEmail('url-credentials@example.com');
  key = (await core.keys.create(account!.id, 'render', 'test')).key;
}, 60_000);

afterAll(async () => {
  await app?.close();
  await dashboard?.close();
  if (core) await closeTestCore(core);
  server?.close();
});

/** Fails the test when `text` holds the part's user name or password in any form it could be written. */
function expectNoCredentials(what: string, text: string): void {
  for (const secret of [PASSWORD, encodeURIComponent(PASSWORD), `${USER}:`, `${USER}@`]) {
    expect(text.includes(secret), `${what} holds "${secret}": ${text.slice(0, 2000)}`).toBe(false);
  }
}

describe.each([
  ['answers 404', '/x.pdf', 'answered HTTP 404'],
  ['answers something not a PDF', '/page.pdf', 'is not a PDF'],
])('a URL part with credentials that %s', (_what, pathname, failure) => {
  const url = () => `http://${USER}:${PASSWORD}@${base}${pathname}`;

  it('is named in the error, the record and the dashboard without its user and password', async () => {
    const res = await postAssemble(app, key, { parts: [{ html: '<p>cover</p>' }, { url: url() }] });
    expect(res.statusCode).toBe(422);
    expect(res.json().error.message).toContain(failure);
    expect(res.json().error.message).toContain(`http://…@${base}${pathname}`);
    expectNoCredentials('the API error', res.body);
    const id = String(res.headers['x-render-id']);
    await app.renderLog.flush();
    const record = await app.inject({ method: 'GET', url: `/v1/renders/${id}`, headers: { authorization: `Bearer ${key}` } });
    expect(record.statusCode, record.body).toBe(200);
    expect(record.json().error.message).toContain(failure);
    expectNoCredentials('the render record', record.body);
    const page = await client.get(`/renders/${id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(failure);
    expectNoCredentials('the dashboard render page', page.body);
  });

  it("is named in a job's error and its webhook without them", async () => {
    const deliveries: Delivery[] = [];
    const sink = await startWebhookSink(deliveries);
    try {
      const res = await submitJob(app, key, { parts: [{ url: url() }], webhook: { url: sink.url } });
      expect(res.statusCode, res.body).toBe(202);
      const job = await waitForJob(app, key, res.json().id);
      expect(job.status).toBe('failed');
      expect(job.error.message).toContain(failure);
      expectNoCredentials("the job's error", JSON.stringify(job));
      const list = await jobRequest(app, key, 'GET', '/v1/jobs');
      expectNoCredentials('the job list', list.body);
      const until = Date.now() + 20_000;
      while (deliveries.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(JSON.parse(deliveries[0]?.body ?? '{}').type).toBe('job.failed');
      expect(deliveries[0].body).toContain(failure);
      expectNoCredentials('the webhook', deliveries[0].body);
    } finally {
      await sink.close();
    }
  });
});

it('leaves them out of every log line', () => {
  expect(logs.length).toBeGreaterThan(0);
  expectNoCredentials('the service log', JSON.stringify(logs));
});

it('redacts the user name and password of any address a log shows', () => {
  expect(redactUrl('https://me:pw@example.com/a?b=1')).toBe('https://[redacted]@example.com/a?b=1');
  expect(redactUrl('http://a@b@example.com/x', { mark: '…' })).toBe('http://…@example.com/x');
  expect(redactUrl('http://example.com/a@b?c=d@e')).toBe('http://example.com/a@b?c=d@e');
});
