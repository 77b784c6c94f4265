/**
 * The render report through POST /v1/render: the issue's mixed document prints with X-Render-Warnings
 * and exactly the entries it earned (and none for what loaded), strict handling answers 422
 * RENDER_INCOMPLETE, a clean document answers X-Render-Warnings: 0, and every render past authentication
 * reaches the render log's recorder, failed ones with their error code.
 */
import net, { type AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { createEgressPolicy } from '../../src/net/policy.js';
import type { RenderRecord, ReportEntry } from '../../src/report/report.js';
import { mixedDocument, mixedLookup, startAssetServer, THROWN } from '../fixtures/render/mixed-document.js';
import { TAMPER_SCRIPT } from '../fixtures/render/tampered-builtins.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { postRender } from '../helpers/render.js';
import { startRenderService } from '../helpers/render-service.js';
import { pdfText } from './pdf-tools.js';

let core: CoreDeps;
let app: FastifyInstance;
let key: string;
let accountId: string;
let assets: Awaited<ReturnType<typeof startAssetServer>>;
const records: RenderRecord[] = [];

/** The render route on its own pool (render timeout `timeoutMs`), reporting to `records`. */
function startApp(timeoutMs: number): Promise<FastifyInstance> {
  const policy = createEgressPolicy({ allow: ['127.0.0.1/32'], lookup: mixedLookup });
  return startRenderService(core, { policy, concurrency: 2, queueLimit: 10, timeoutMs }, { record: (r) => records.push(r) });
}

beforeAll(async () => {
  assets = await startAssetServer();
  core = await createTestCore();
  app = await startApp(15_000);
  ({ key, accountId } = await createKey(core, 'render'));
});

afterAll(async () => {
  await app?.close();
  if (core) await closeTestCore(core);
  await assets?.close();
});

/** The record of the render that answered with this X-Render-ID (recorded as the answer is sent). */
function recordOf(id: unknown): RenderRecord {
  const found = records.find((r) => r.id === id);
  if (!found) throw new Error(`no record for ${String(id)}`);
  return found;
}

describe('the mixed document', () => {
  it('prints, says how many things it could not get, and the record lists exactly those', async () => {
    const res = await postRender(app, key, { html: mixedDocument(assets.base) });
    expect(res.statusCode).toBe(200);
    expect(pdfText(res.rawPayload)).toContain('Invoice 2024-117');
    expect(res.headers['x-render-warnings']).toBe('5');
    const record = recordOf(res.headers['x-render-id']);
    expect(record).toMatchObject({ accountId, source: 'api', jobId: null, status: 'succeeded', error: null, pages: 1 });
    expect(record.bytes).toBe(res.rawPayload.length);
    const byKind = [...record.warnings].sort((a, b) => a.kind.localeCompare(b.kind) || a.message.localeCompare(b.message));
    expect(byKind).toEqual([
      {
        kind: 'font_failed',
        family: 'Brand Sans',
        url: `${assets.base}/fonts/brand-sans.woff2`,
        message:
          'The font "Brand Sans" could not be loaded from brand-sans.woff2 (its server answered HTTP 404); its text printed in a fallback font',
      },
      {
        kind: 'resource_blocked',
        url: 'http://brand.internal.test/brand.css',
        reason: 'private_address',
        message: 'brand.css was not loaded: its address is on a private network (EGRESS_ALLOW lets an operator allow it)',
      },
      {
        kind: 'resource_blocked',
        url: 'http://theme.nowhere.test/theme.css',
        reason: 'unresolvable',
        message:
          "theme.css was not loaded: the host theme.nowhere.test could not be found (check the address, or the render server's DNS)",
      },
      {
        kind: 'resource_failed',
        url: `${assets.base}/logo.png`,
        status: 404,
        message: 'logo.png was not loaded: its server answered HTTP 404',
      },
      { kind: 'script_error', text: THROWN, message: `A script in the document failed: ${THROWN}` },
    ]);
  });

  it('with Prefer: handling=strict answers 422 RENDER_INCOMPLETE naming the count and the first entries', async () => {
    const res = await postRender(app, key, { html: mixedDocument(assets.base) }, { prefer: 'respond-async, HANDLING=Strict' });
    expect(res.statusCode).toBe(422);
    expect(res.headers['preference-applied']).toBe('handling=strict');
    const { error } = res.json();
    expect(error.code).toBe('RENDER_INCOMPLETE');
    expect(error.message).toMatch(/^the document could not get everything \(5 warnings, strict handling\): .+; and 2 more/);
    expect(error.message).toContain(`GET /v1/renders/${res.headers['x-render-id']} lists them all`);
    const record = recordOf(res.headers['x-render-id']);
    expect(record.status).toBe('failed');
    expect(record.error).toEqual(error);
    expect(record.warnings).toHaveLength(5);
  });

  it('other preferences, and handling=lenient, print as usual', async () => {
    for (const prefer of ['respond-async', 'handling=lenient, handling=strict', 'return=minimal; handling=strict']) {
      const res = await postRender(app, key, { html: mixedDocument(assets.base) }, { prefer });
      expect(res.statusCode, prefer).toBe(200);
      expect(res.headers['x-render-warnings']).toBe('5');
    }
  });
});

describe('documents that got everything', () => {
  it('answer 200 with X-Render-Warnings: 0, strict or not, and report nothing for what loaded', async () => {
    const html = `<link rel="stylesheet" href="${assets.base}/site.css"><h1>Paid</h1><img src="${assets.base}/ok.gif">`;
    for (const prefer of [undefined, 'handling=strict']) {
      const res = await postRender(app, key, { html }, prefer ? { prefer } : {});
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-render-warnings']).toBe('0');
      expect(recordOf(res.headers['x-render-id']).warnings).toEqual([]);
    }
  });
});

describe('what a report never holds, and how long it gets', () => {
  it('shows a data: URL by its media type only', async () => {
    const payload = 'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=';
    const html = `<style>@font-face { font-family: Broken; src: url("data:font/woff2;base64,${payload}"); }</style>
      <p style="font-family: Broken">text</p>`;
    const res = await postRender(app, key, { html });
    expect(res.statusCode).toBe(200);
    const record = recordOf(res.headers['x-render-id']);
    expect(record.warnings).toEqual([
      {
        kind: 'font_failed',
        family: 'Broken',
        url: 'data:font/woff2',
        message:
          'The font "Broken" could not be loaded from an inline font/woff2 (data: URL); its text printed in a fallback font',
      },
    ]);
    expect(JSON.stringify(record)).not.toContain(payload);
  });

  it('names a failed font of a document that replaced the built-ins the read uses', async () => {
    const html = `<style>@font-face { font-family: Broken; src: url("data:font/woff2;base64,QUJDRA=="); }</style>${TAMPER_SCRIPT}
      <p style="font-family: Broken">text</p>`;
    const res = await postRender(app, key, { html });
    expect(res.statusCode).toBe(200);
    expect(recordOf(res.headers['x-render-id']).warnings).toEqual([
      {
        kind: 'font_failed',
        family: 'Broken',
        url: 'data:font/woff2',
        message:
          'The font "Broken" could not be loaded from an inline font/woff2 (data: URL); its text printed in a fallback font',
      },
    ]);
  });

  it('keeps 100 of 10,000 throws and says how many it dropped', async () => {
    // What the 10,000 throws cost against 10,000 empty timers is measured in `npm run bench -- render-report`.
    const throws = `<p>thrower</p><script>for (let i = 0; i < 10000; i++) setTimeout(() => { throw new Error('boom ' + i); });</script>`;
    const noisy = await postRender(app, key, { html: throws });
    expect(noisy.statusCode).toBe(200);
    expect(noisy.headers['x-render-warnings']).toBe('10000');
    const { warnings } = recordOf(noisy.headers['x-render-id']);
    expect(warnings).toHaveLength(101);
    expect(warnings[0]).toEqual({
      kind: 'script_error',
      text: 'Error: boom 0',
      message: 'A script in the document failed: Error: boom 0',
    });
    expect(warnings[99]).toMatchObject({ kind: 'script_error', text: 'Error: boom 99' });
    expect(warnings[100]).toEqual({
      kind: 'truncated',
      dropped: 9900,
      message: '9900 more problems were not listed (a report keeps the first 100)',
    });
  });
});

describe('refusals met through a tunnel, and failures below HTTP', () => {
  it('https to a private or unknown host is blocked with its reason; a closed port is refused', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const closed = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const html = `<p>tunnels</p>
      <img src="https://brand.internal.test/logo.png">
      <img src="https://theme.nowhere.test/mark.png">
      <img src="http://127.0.0.1:${closed}/gone.png">`;
    const res = await postRender(app, key, { html });
    expect(res.statusCode).toBe(200);
    const sorted = [...recordOf(res.headers['x-render-id']).warnings].sort((a, b) => a.message.localeCompare(b.message));
    expect(sorted).toEqual([
      {
        kind: 'resource_failed',
        url: `http://127.0.0.1:${closed}/gone.png`,
        error: 'refused',
        message: 'gone.png was not loaded: its server refused the connection',
      },
      {
        kind: 'resource_blocked',
        url: 'https://brand.internal.test/logo.png',
        reason: 'private_address',
        message: 'logo.png was not loaded: its address is on a private network (EGRESS_ALLOW lets an operator allow it)',
      },
      {
        kind: 'resource_blocked',
        url: 'https://theme.nowhere.test/mark.png',
        reason: 'unresolvable',
        message:
          "mark.png was not loaded: the host theme.nowhere.test could not be found (check the address, or the render server's DNS)",
      },
    ]);
  });
});

describe("the document's own Content-Security-Policy", () => {
  it('names a request it stopped as stopped by it, even on a host the proxy refused for another request', async () => {
    const html = `<meta http-equiv="Content-Security-Policy" content="img-src https://theme.nowhere.test; font-src 'none'">
      <style>@font-face { font-family: Brand; src: url(https://theme.nowhere.test/brand.woff2) } p { font-family: Brand }</style>
      <p>policy</p>
      <img src="https://theme.nowhere.test/mark.png">
      <img src="${assets.base}/ok.gif">`;
    const res = await postRender(app, key, { html });
    expect(res.statusCode).toBe(200);
    const sorted = [...recordOf(res.headers['x-render-id']).warnings].sort((a, b) => a.message.localeCompare(b.message));
    const policy = "the document's own Content-Security-Policy does not allow it";
    expect(sorted).toEqual([
      {
        kind: 'resource_blocked',
        url: 'https://theme.nowhere.test/mark.png',
        reason: 'unresolvable',
        message:
          "mark.png was not loaded: the host theme.nowhere.test could not be found (check the address, or the render server's DNS)",
      },
      { kind: 'resource_failed', url: `${assets.base}/ok.gif`, error: 'csp', message: `ok.gif was not loaded: ${policy}` },
      {
        kind: 'font_failed',
        family: 'Brand',
        url: 'https://theme.nowhere.test/brand.woff2',
        message: `The font "Brand" could not be loaded from brand.woff2 (${policy}); its text printed in a fallback font`,
      },
    ]);
  });
});

describe('an address with a user name and password', () => {
  it('is named as what stopped the request, not as a broken connection', async () => {
    const res = await postRender(app, key, { html: `<p>logo</p><img src="http://user:s3cret@${assets.base.slice(7)}/ok.gif">` });
    expect(res.statusCode).toBe(200);
    expect(recordOf(res.headers['x-render-id']).warnings).toEqual([
      {
        kind: 'resource_failed',
        url: `${assets.base}/ok.gif`,
        error: 'credentials',
        message:
          'ok.gif was not loaded: its address holds a user name or password, and browsers load no image, style, script or font from such an address (serve it without them, or inline it as a data: URL)',
      },
    ]);
  });
});

describe('a resource the browser refuses for its answer', () => {
  it('is named for what its answer was, not as a broken connection', async () => {
    const names = ['sign-in.gif', 'own-site.gif', 'not-gzip.gif', 'loop.gif'];
    const res = await postRender(app, key, {
      html: `<p>images</p>${names.map((n) => `<img src="${assets.base}/${n}">`).join('')}<iframe src="${assets.base}/no-frames.html"></iframe>`,
    });
    expect(res.statusCode).toBe(200);
    // In the order the answers came back, which the server does not fix: sorted by address.
    const urlOf = (entry: ReportEntry): string => ('url' in entry ? String(entry.url) : '');
    const warnings = [...recordOf(res.headers['x-render-id']).warnings];
    expect(warnings.sort((a, b) => urlOf(a).localeCompare(urlOf(b)))).toEqual([
      {
        kind: 'resource_failed',
        url: `${assets.base}/loop.gif`,
        error: 'redirects',
        message: 'loop.gif was not loaded: it redirects more than 20 times (a redirect loop)',
      },
      {
        kind: 'resource_failed',
        url: `${assets.base}/no-frames.html`,
        error: 'framing',
        message:
          'no-frames.html was not loaded: its server does not let other pages show it in a frame (X-Frame-Options or Content-Security-Policy frame-ancestors)',
      },
      {
        kind: 'resource_failed',
        url: `${assets.base}/not-gzip.gif`,
        error: 'decoding',
        message:
          'not-gzip.gif was not loaded: its answer says it is compressed (Content-Encoding) and its bytes do not decompress',
      },
      {
        kind: 'resource_failed',
        url: `${assets.base}/own-site.gif`,
        error: 'corp',
        message: 'own-site.gif was not loaded: its server lets only its own site use it (Cross-Origin-Resource-Policy)',
      },
      {
        kind: 'resource_failed',
        url: `${assets.base}/sign-in.gif`,
        error: 'orb',
        message:
          'sign-in.gif was not loaded: its server answered with a web page, JSON or XML where an image, style sheet, script or media file was expected, and browsers do not load that (the address may lead to an error or sign-in page)',
      },
    ]);
  });
});

describe('an answer its server cut short', () => {
  it('is a broken connection at once, not a request still loading when the wait ran out', async () => {
    const res = await postRender(app, key, { html: `<p>logo</p><img src="${assets.base}/cut-short.gif">` });
    expect(res.statusCode).toBe(200);
    expect(recordOf(res.headers['x-render-id']).warnings).toEqual([
      {
        kind: 'resource_failed',
        url: `${assets.base}/cut-short.gif`,
        error: 'reset',
        message: 'cut-short.gif was not loaded: the connection broke before it finished',
      },
    ]);
  });

  it('does not hold a document whose load waits on it until the render times out', async () => {
    const html = `<img src="${assets.base}/cut-short.gif"><link rel="stylesheet" href="${assets.base}/missing.css"><p>text</p>`;
    const res = await postRender(app, key, { html });
    expect(res.statusCode, res.body).toBe(200);
    expect(pdfText(res.rawPayload)).toContain('text');
  });
});

describe('late documents', () => {
  it('report a rejected pageworksReady and the requests still pending when the wait ran out', async () => {
    const html = `<p>late</p><script>
      fetch('${assets.base}/hang');
      window.pageworksReady = new Promise((_, reject) => setTimeout(() => reject(new Error('prices did not load')), 50));
    </script>`;
    const res = await postRender(app, key, { html });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-render-warnings']).toBe('2');
    expect(recordOf(res.headers['x-render-id']).warnings).toEqual([
      {
        kind: 'not_ready',
        text: 'prices did not load',
        message: 'window.pageworksReady was rejected (prices did not load); the document printed as it was then',
      },
      {
        kind: 'printed_while_pending',
        count: 1,
        urls: [`${assets.base}/hang`],
        message:
          '1 request was still loading when the wait for them (RENDER_IDLE_MAX_MS) ran out, and the document printed ' +
          'without it: hang (window.pageworksReady lets a document say when it is ready)',
      },
    ]);
  });
});

describe('failed renders', () => {
  it('a render that timed out is recorded failed with RENDER_TIMEOUT', async () => {
    const quick = await startApp(1500);
    try {
      const res = await postRender(quick, key, { html: '<p>never ready</p><script>window.pageworksReady = false</script>' });
      expect(res.statusCode).toBe(504);
      const record = recordOf(res.headers['x-render-id']);
      expect(record).toMatchObject({
        status: 'failed',
        error: { code: 'RENDER_TIMEOUT' },
        pages: null,
        bytes: null,
        warnings: [],
      });
      expect(record.durationMs).toBeGreaterThanOrEqual(1500);
    } finally {
      await quick.close();
    }
  });

  it('a render that timed out while its document loaded names what it was still loading', async () => {
    const quick = await startApp(2000);
    try {
      const html = `<p>waits</p><img src="${assets.base}/hang">`;
      const res = await postRender(quick, key, { html });
      expect(res.statusCode).toBe(504);
      expect(res.json().error).toEqual({ code: 'RENDER_TIMEOUT', message: 'render exceeded 2000 ms; still loading then: hang' });
      expect(recordOf(res.headers['x-render-id']).error).toEqual({
        code: 'RENDER_TIMEOUT',
        message: 'render exceeded 2000 ms; still loading then: hang',
      });
    } finally {
      await quick.close();
    }
  });

  it('are recorded with their error code; a request without a valid key is not', async () => {
    const before = records.length;
    const bad = await postRender(app, key, { html: '<p>x</p>', options: { format: 'A9' } });
    expect(bad.statusCode).toBe(400);
    expect(recordOf(bad.headers['x-render-id'])).toMatchObject({
      status: 'failed',
      error: { code: 'INVALID_REQUEST' },
      pages: null,
    });
    const anonymous = await postRender(app, 'pwr_live_nope', { html: '<p>x</p>' });
    expect(anonymous.statusCode).toBe(401);
    expect(records.slice(before).map((r) => r.id)).toEqual([bad.headers['x-render-id']]);
  });
});
