/**
 * Egress and isolation with untrusted HTML, against loopback canaries that count what reaches them.
 * One app without EGRESS_ALLOW (everything loopback must be refused) and one with 127.0.0.1/32 (the
 * positive control: the same kind of request does arrive, so the zero counts can fail).
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CoreDeps } from '../../src/app/core.js';
import { buildRenderApp } from '../../src/app/render-app.js';
import type { LookupFn } from '../../src/net/policy.js';
import { closeTestCore, createKey, createTestCore } from '../helpers/core.js';
import { postRender } from '../helpers/render.js';
import { CANARY_TEXT, type Canary, startCanary } from './canary.js';
import { pdfText, pixel } from './pdf-tools.js';

let canary: Canary;
const lookups: string[] = [];
/** The only name that resolves: to loopback, like a rebinding attacker's zone would. */
const lookup: LookupFn = async (hostname) => {
  lookups.push(hostname);
  if (hostname === 'rebind.test') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`no such host ${hostname}`), { code: 'ENOTFOUND' });
};

interface Service {
  core: CoreDeps;
  app: FastifyInstance;
  keys: string[];
}

async function service(env: Record<string, string>): Promise<Service> {
  const core = await createTestCore({ RENDER_CONCURRENCY: '2', RENDER_TIMEOUT_MS: '15000', ...env });
  const app = await buildRenderApp(core, { lookup });
  const keys = [(await createKey(core, 'render')).key, (await createKey(core, 'render')).key];
  return { core, app, keys };
}

let closed: Service;
let open: Service;

beforeAll(async () => {
  canary = await startCanary();
  [closed, open] = await Promise.all([service({}), service({ EGRESS_ALLOW: '127.0.0.1/32' })]);
});

afterAll(async () => {
  for (const s of [closed, open]) {
    await s?.app.close();
    if (s) await closeTestCore(s.core);
  }
  await canary?.close();
});

function render(s: Service, html: string, keyIndex = 0, options: Record<string, unknown> = {}): Promise<LightMyRequestResponse> {
  return postRender(s.app, s.keys[keyIndex]!, { html, options });
}

/** A document that tries every kind of request a page can make against `base` (and file:). */
function attackDocument(base: string, udpPort: number): string {
  const u = (kind: string) => `${base}/${kind}`;
  const frame = (body: string) => `<iframe srcdoc="${body.replace(/"/g, '&quot;')}"></iframe>`;
  return `<!doctype html><html><head>
<link rel="stylesheet" href="${u('css')}">
<link rel="prefetch" href="${u('prefetch')}">
<link rel="preload" as="image" href="${u('preload')}">
<link rel="preconnect" href="${base}">
<link rel="dns-prefetch" href="${base}">
<link rel="icon" href="${u('favicon')}">
<link rel="stylesheet" href="file:///etc/passwd">
<style>
@import url(${u('import.css')});
@font-face { font-family: Canary; src: url(${u('font.woff2')}); }
body { background-image: url(${u('bg.png')}); font-family: Canary, sans-serif; }
</style>
<script src="${u('script.js')}"></script>
</head><body>
<p>attack document</p>
<img src="${u('img.png')}"><img srcset="${u('srcset.png')} 2x">
<img src="file:///etc/passwd">
<iframe src="${u('iframe')}"></iframe>
<iframe src="file:///etc/passwd"></iframe>
<object data="${u('object')}"></object>
<object data="file:///etc/passwd"></object>
<embed src="${u('embed')}">
<embed src="file:///etc/passwd">
<video src="${u('video.mp4')}" autoplay muted></video><audio src="${u('audio.mp3')}" autoplay></audio>
<svg width="10" height="10"><image href="${u('svg-image.png')}" width="10" height="10"/></svg>
<iframe src="http://localhost:${canary.port}/localhost"></iframe>
<iframe src="http://2130706433:${canary.port}/decimal"></iframe>
<iframe src="http://0x7f.0.0.1:${canary.port}/hex"></iframe>
<iframe src="http://[::ffff:127.0.0.1]:${canary.port}/mapped"></iframe>
<iframe src="http://rebind.test:${canary.port}/rebind"></iframe>
<iframe src="https://rebind.test:${canary.port}/tls"></iframe>
${frame(`<meta http-equiv="refresh" content="0;url=${u('meta-refresh')}">`)}
${frame(`<script>location.href = '${u('location')}'</script>`)}
${frame(`<form action="${u('form')}" method="post"><input name="a" value="b"></form><script>document.forms[0].submit()</script>`)}
${frame(`<meta http-equiv="refresh" content="0;url=file:///etc/passwd">`)}
<script>
const log = (m) => document.body.append(' ' + m);
fetch('${u('fetch')}').then((r) => r.text()).then(log, () => log('fetch refused'));
fetch('file:///etc/passwd').then((r) => r.text()).then(log, () => log('file fetch refused'));
const xhr = new XMLHttpRequest(); xhr.open('GET', '${u('xhr')}'); xhr.onload = () => log(xhr.responseText); xhr.send();
navigator.sendBeacon('${u('beacon')}', 'x');
try { new WebSocket('ws://127.0.0.1:${canary.port}/ws'); } catch (e) { log('ws refused'); }
try { new WebSocket('wss://127.0.0.1:${canary.port}/wss'); } catch (e) { log('wss refused'); }
const es = new EventSource('${u('sse')}'); es.onerror = () => es.close();
new Worker(URL.createObjectURL(new Blob(["fetch('${u('worker-fetch')}').catch(() => 0); importScripts('${u('import-scripts.js')}');"])));
try { new SharedWorker(URL.createObjectURL(new Blob(["fetch('${u('shared-worker')}').catch(() => 0)"]))); } catch (e) { log('no shared worker'); }
try { new Worker('${u('worker.js')}'); } catch (e) { log('cross-origin worker refused'); }
window.open('${u('popup')}');
const img = new Image(); img.src = '${u('js-image')}';
try {
  const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:${udpPort}' }, { urls: 'turn:127.0.0.1:${udpPort}', username: 'u', credential: 'c' }] });
  pc.createDataChannel('x');
  pc.createOffer().then((o) => pc.setLocalDescription(o));
} catch (e) { log('no webrtc'); }
</script>
</body></html>`;
}

describe('egress with EGRESS_ALLOW unset', () => {
  it('no request kind reaches a loopback canary and nothing leaks into the PDF', async () => {
    const res = await render(closed, attackDocument(`http://127.0.0.1:${canary.port}`, canary.udpPort));
    expect(res.statusCode).toBe(200);
    // Give stragglers (late workers, WebRTC gathering, the popup) time to try.
    await new Promise((r) => setTimeout(r, 1500));
    expect(canary.connections).toBe(0);
    expect(canary.requests).toEqual([]);
    expect(canary.udpDatagrams).toBe(0);
    const text = pdfText(res.rawPayload);
    expect(text).toContain('attack document');
    expect(text).not.toContain(CANARY_TEXT);
    expect(text).not.toMatch(/root:.*:0:0:/);
    // The host name was resolved by the egress policy (and refused), not by Chromium.
    expect(lookups).toContain('rebind.test');
  });

  it('refused frames of other sites: one warning each, none saying a frame was still loading, on both builds', async () => {
    // Full Chromium moves a cross-site frame's document to a renderer of its own, where the page's protocol
    // session does not hear its request end: that request waited out RENDER_IDLE_MAX_MS and came back as a
    // fifth warning, "still loading". The shell keeps such frames in the page's renderer.
    const frames = ['127.0.0.1', 'localhost', '[::ffff:127.0.0.1]', 'rebind.test'].map(
      (host) => `<iframe src="http://${host}:${canary.port}/frame"></iframe>`,
    );
    const res = await render(closed, `<p>outer</p>${frames.join('')}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-render-warnings']).toBe('4');
    expect(canary.connections).toBe(0);
  });

  it('a top-level navigation to loopback or file: does not leave the document', async () => {
    for (const html of [
      `<p>stay</p><script>location.href = 'http://127.0.0.1:${canary.port}/top'</script>`,
      `<meta http-equiv="refresh" content="0;url=file:///etc/passwd"><p>stay</p>`,
      `<p>stay</p><script>location.href = 'file:///etc/passwd'</script>`,
    ]) {
      const res = await render(closed, html);
      expect(res.statusCode).toBe(200);
      const text = pdfText(res.rawPayload);
      expect(text).not.toContain(CANARY_TEXT);
      expect(text).not.toMatch(/root:.*:0:0:/);
    }
    expect(canary.connections).toBe(0);
  });
});

describe('egress with EGRESS_ALLOW=127.0.0.1/32', () => {
  it('a loopback image does load (the control that shows the canary can be hit)', async () => {
    const html = `<body style="margin:0"><img style="display:block;width:100vw;height:100vh" src="http://127.0.0.1:${canary.port}/red.svg"></body>`;
    const before = canary.requests.length;
    const res = await render(open, html);
    expect(res.statusCode).toBe(200);
    expect(canary.requests.length).toBeGreaterThan(before);
    const [r, g, b] = pixel(res.rawPayload, 60, 80);
    expect([r > 240, g < 20, b < 20]).toEqual([true, true, true]);
  });

  it('a loopback iframe loads and is printed with the page (the control for the refused iframes above)', async () => {
    const res = await render(open, `<p>outer page</p><iframe src="http://127.0.0.1:${canary.port}/framed"></iframe>`);
    expect(res.statusCode).toBe(200);
    expect(canary.requests.some((r) => r.url.includes('/framed'))).toBe(true);
    const text = pdfText(res.rawPayload);
    expect(text).toContain('outer page');
    expect(text).toContain(CANARY_TEXT);
  });
});

describe('isolation between renders', () => {
  it('render B (other account) finds nothing of render A in an opaque-origin document', async () => {
    const a = await render(closed, `<script>window.leak = 'SECRET-GLOBAL-A'; window.name = 'SECRET-NAME-A';</script><p>A</p>`, 0);
    expect(a.statusCode).toBe(200);
    const b = await render(
      closed,
      `<p id="out"></p><script>out.textContent = 'probe: global=' + String(window.leak) + ' name=[' + window.name + '] history=' + history.length;</script>`,
      1,
    );
    const text = pdfText(b.rawPayload);
    expect(text).toContain('probe: global=undefined name=[] history=1');
    expect(text).not.toContain('SECRET');
  });

  it('cookies, localStorage, sessionStorage and IndexedDB stored by A on a real origin are gone for B', async () => {
    const base = `http://127.0.0.1:${canary.port}`;
    const a = await render(open, `<script>location.href = '${base}/store'</script>`, 0);
    expect(a.statusCode).toBe(200);
    // A's own PDF shows the values were really stored (so the check on B can fail).
    const aText = pdfText(a.rawPayload);
    expect(aText).toContain('SECRET-COOKIE-A');
    expect(aText).toContain('SECRET-LOCAL-A');
    expect(aText).toContain('SECRET-IDB-A');

    const b = await render(open, `<script>location.href = '${base}/read'</script>`, 1);
    expect(b.statusCode).toBe(200);
    const bText = pdfText(b.rawPayload);
    expect(bText).toContain('probe: cookie= local=null session=null idb=undefined');
    expect(bText).not.toContain('SECRET');
    const readRequests = canary.requests.filter((r) => r.url.includes('/read'));
    expect(readRequests.length).toBeGreaterThan(0);
    expect(readRequests.every((r) => r.cookie === undefined)).toBe(true);
  });
});
