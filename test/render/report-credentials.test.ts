/**
 * Credential-like query values never leave the service: a document whose resources fail, on a loopback
 * server (`?token=`, `?access_token=`, `?sig=`, a `#access_token=` fragment) and on a host that does not
 * resolve (`?Signature=`); each value shows as `…` in GET /v1/renders/{id}, in a job's webhook, on the
 * dashboard's render page, and nowhere in the service's log (docs/rendering.md).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildDashboardApp } from '../../src/app/dashboard-app.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import { WebhookSecrets } from '../../src/jobs/webhook-secrets.js';
import { type FormClient, signUp } from '../dashboard/client.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { noDns, postRender } from '../helpers/render.js';
import { type Delivery, startWebhookSink, type WebhookSink } from '../helpers/webhook-sink.js';
import { submitJob, waitForJob } from '../jobs/helpers.js';

const SECRETS = ['SECRET1', 'SECRET2', 'SECRET3', 'SECRET4', 'SECRET5'];
const EMAIL = 'credentials@example.com';

let core: CoreDeps;
let app: FastifyInstance;
let dashboard: FastifyInstance;
let browser: FormClient;
let key: string;
let accountId: string;
let receiver: WebhookSink;
let server: http.Server;
let base: string;
const deliveries: Delivery[] = [];
const logLines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  // Every resource answers 404.
  server = http.createServer((_req, res) => {
    res.statusCode = 404;
    res.end('not here');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver = await startWebhookSink(deliveries, { status: 204 });
  core = await createTestCore(
    { EGRESS_ALLOW: '127.0.0.1/32', RENDER_CONCURRENCY: '1', RENDER_TIMEOUT_MS: '20000', LOG_LEVEL: 'debug' },
    logLines,
  );
  app = await buildRenderApp(core, { lookup: noDns });
  dashboard = await buildDashboardApp(core);
  browser = await signUp(dashboard, EMAIL);
  ({ key, accountId } = await createKey(core, 'render', EMAIL));
}, 120_000);

afterAll(async () => {
  await app?.close();
  await dashboard?.close();
  if (core) await closeTestCore(core);
  await receiver?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

/** The document: four resources that fail, each with a credential in its address. */
const documentHtml = () => `<!doctype html><title>Invoice</title><h1>Invoice</h1>
  <link rel="stylesheet" href="${base}/brand.css?access_token=SECRET2">
  <img src="${base}/logo.png?token=SECRET1" alt="">
  <img src="${base}/stamp.png?v=2#access_token=SECRET4" alt="">
  <script src="${base}/app.js?lang=en&sig=SECRET3"></script>
  <img src="http://cdn.invalid/seal.png?Signature=SECRET5" alt="">`;

/** The entries every render of the document reports, ordered by URL: each credential shown as `…`. */
const expected = () =>
  [
    ...[
      ['brand.css', 'brand.css?access_token=…'],
      ['logo.png', 'logo.png?token=…'],
      // Chromium never requests the fragment, so neither the report nor a log ever holds it.
      ['stamp.png', 'stamp.png?v=2'],
      ['app.js', 'app.js?lang=en&sig=…'],
    ].map(([name, path]) => ({
      kind: 'resource_failed',
      url: `${base}/${path}`,
      status: 404,
      message: `${name} was not loaded: its server answered HTTP 404`,
    })),
    {
      kind: 'resource_blocked',
      url: 'http://cdn.invalid/seal.png?Signature=…',
      reason: 'unresolvable',
      message: "seal.png was not loaded: the host cdn.invalid could not be found (check the address, or the render server's DNS)",
    },
  ].sort((a, b) => a.url.localeCompare(b.url));

const byUrl = (warnings: Array<{ url: string }>) => [...warnings].sort((a, b) => a.url.localeCompare(b.url));

function expectNoSecret(text: string, where: string): void {
  for (const secret of SECRETS) expect(text, `${secret} in ${where}`).not.toContain(secret);
}

describe('credential-like query values of failed resources', () => {
  let renderId: string;

  it('GET /v1/renders/{id} shows … in place of each value, and never the value', async () => {
    const res = await postRender(app, key, { html: documentHtml() });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.headers['x-render-warnings']).toBe('5');
    renderId = String(res.headers['x-render-id']);
    await app.renderLog.flush();
    const record = await app.inject({
      method: 'GET',
      url: `/v1/renders/${renderId}`,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(record.statusCode).toBe(200);
    expect(byUrl(record.json().warnings)).toEqual(expected());
    expectNoSecret(record.body, 'GET /v1/renders/{id}');
  });

  it('a job’s webhook shows … in its warnings, and never the value', async () => {
    const res = await submitJob(app, key, { html: documentHtml(), webhook: { url: receiver.url } });
    expect(res.statusCode, res.body).toBe(202);
    const job = await waitForJob(app, key, res.json().id);
    expect(job.status).toBe('succeeded');
    expect(byUrl(job.warnings)).toEqual(expected());
    const until = Date.now() + 30_000;
    let delivery: Delivery | undefined;
    while (!delivery) {
      delivery = deliveries.find((d) => JSON.parse(d.body).data?.id === job.id);
      if (!delivery && Date.now() > until) throw new Error(`no webhook for ${job.id}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const secret = await new WebhookSecrets(core.store, core.secrets?.box).get(accountId);
    const event = new Webhook(secret).verify(delivery.body, delivery.headers) as {
      type: string;
      data: { warnings: Array<{ url: string }> };
    };
    expect(event.type).toBe('job.succeeded');
    expect(byUrl(event.data.warnings)).toEqual(expected());
    expectNoSecret(delivery.body, 'the webhook body');
  });

  it('the dashboard’s render page shows … in each URL, and never the value', async () => {
    const page = await browser.get(`/renders/${renderId}`);
    expect(page.statusCode).toBe(200);
    const shown = [...page.body.matchAll(/<dt>URL<\/dt><dd class="mono">([^<]*)<\/dd>/g)].map((m) =>
      m[1]!.replaceAll('&amp;', '&'),
    );
    expect(shown.sort()).toEqual(expected().map((w) => w.url));
    expectNoSecret(page.body, 'the render page');
  });

  it('the service log of those renders holds none of the values', () => {
    // The log did see the renders: a line per render with its warning count.
    expect(logLines.filter((l) => l.msg === 'rendered').map((l) => l.warnings)).toContain(5);
    expectNoSecret(JSON.stringify(logLines), 'the log');
  });
});
