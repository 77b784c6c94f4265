/**
 * Slot reuse: a render slot (context + page) serves the next render only when the previous render
 * provably left nothing behind, and whatever a clean render can still do in its opaque-origin
 * about:blank document (globals, window.name, timers, BroadcastChannel, storage attempts) does not
 * reach the next render in the same slot. Everything else (a navigation of its own, history entries,
 * a popup, a network request) costs the slot its context.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgressPolicy } from '../../src/net/policy.js';
import { type LaunchedChromium, launchChromium, shutdownChromium } from '../../src/render/browser/chromium.js';
import { closeSlot, createSlot, hasForeignTargets, type RenderSlot, resetSlot } from '../../src/render/browser/slot.js';
import { renderInSlot } from '../../src/render/document/renderer.js';
import { BrowserPool } from '../../src/render/pool/browser-pool.js';
import { toPrintParams } from '../../src/render/request/options.js';
import { noDns } from '../helpers/render.js';
import { pdfText } from './pdf-tools.js';

const A4 = toPrintParams({});
/** The PDF's text on one line (pdftotext wraps long lines). */
const flatText = (pdf: Buffer): string => pdfText(pdf).replace(/\s+/g, ' ');
const policy = createEgressPolicy({ allow: [], lookup: noDns });

/** What a render can try to leave behind in an opaque-origin document; it prints what worked. */
const LEAVE = `<p id="out"></p><script>
window.leak = 'SECRET-GLOBAL';
window.name = 'SECRET-NAME';
const tried = ['origin=' + origin];
const attempt = (what, fn) => { try { fn(); tried.push(what + '=ok'); } catch (e) { tried.push(what + '=' + e.name); } };
attempt('cookie', () => { document.cookie = 'c=SECRET-COOKIE; max-age=3600'; });
attempt('localStorage', () => localStorage.setItem('k', 'SECRET-LOCAL'));
attempt('sessionStorage', () => sessionStorage.setItem('k', 'SECRET-SESSION'));
attempt('indexedDB', () => indexedDB.open('db'));
const channel = new BroadcastChannel('leak');
setInterval(() => channel.postMessage('SECRET-BROADCAST'), 1);
setInterval(() => { window.name = 'SECRET-LATE-NAME'; }, 1);
out.textContent = 'left: ' + tried.join(' ');
</script>`;

/** Prints whatever it can find of LEAVE's values; its own BroadcastChannel message is the control. */
const PROBE = `<p id="out"></p><script>
const read = (fn) => { try { return String(fn()); } catch (e) { return e.name; } };
const heard = [];
const report = () => {
  out.textContent = 'probe: global=' + String(window.leak) + ' name=[' + window.name + ']' +
    ' cookie=' + read(() => '[' + document.cookie + ']') + ' local=' + read(() => localStorage.getItem('k')) +
    ' session=' + read(() => sessionStorage.getItem('k')) + ' history=' + history.length + ' state=' + String(history.state) +
    ' heard=' + heard.join('+');
};
new BroadcastChannel('leak').onmessage = (e) => { heard.push(e.data); report(); };
new BroadcastChannel('leak').postMessage('SELF');
report();
</script>`;

const PROBE_CLEAN =
  'probe: global=undefined name=[] cookie=SecurityError local=SecurityError session=SecurityError history=1 state=null';

describe('one slot, render after render', () => {
  let launched: LaunchedChromium;

  beforeAll(async () => {
    launched = await launchChromium();
  });
  afterAll(async () => {
    if (launched) await shutdownChromium(launched);
  });

  async function withSlot(fn: (slot: RenderSlot) => Promise<void>): Promise<void> {
    const slot = await createSlot(launched, { policy, maxRequests: 50, maxBytes: 1 << 20 });
    try {
      await fn(slot);
    } finally {
      await closeSlot(slot);
    }
  }

  const render = async (slot: RenderSlot, html: string): Promise<string> =>
    flatText((await renderInSlot(slot, html, A4, { deadline: Date.now() + 10_000, timeoutMs: 10_000 })).pdf);

  it('a clean render is followed in the same slot by a render that finds none of its values', async () => {
    await withSlot(async (slot) => {
      // The storage kinds are refused outright in the opaque origin, so nothing can be stored at all.
      expect(await render(slot, LEAVE)).toContain(
        'left: origin=null cookie=SecurityError localStorage=SecurityError sessionStorage=SecurityError indexedDB=SecurityError',
      );
      expect(await resetSlot(slot, 5000)).toBe(true);
      const text = await render(slot, PROBE);
      expect(text).toContain(PROBE_CLEAN);
      expect(text).toMatch(/heard=SELF\s*$/);
      expect(text).not.toContain('SECRET');
    });
  });

  it.each([
    [
      'navigates itself to a blob: document',
      `<script>location = URL.createObjectURL(new Blob(['<p>moved away</p>'], { type: 'text/html' }))</script>`,
      'moved away',
    ],
    ['changes its URL fragment', `<p>hash</p><script>location.hash = 'x'</script>`, 'hash'],
    ['adds a history entry', `<p>pushed</p><script>history.pushState('SECRET-STATE', '')</script>`, 'pushed'],
    ['asks for the network (refused)', `<p>fetcher</p><script>fetch('http://example.test/x').catch(() => 0)</script>`, 'fetcher'],
  ])('a render that %s is printed where it ended up and its slot is not reused', async (_what, html, printed) => {
    await withSlot(async (slot) => {
      expect(await render(slot, html)).toContain(printed);
      expect(await resetSlot(slot, 5000)).toBe(false);
    });
  });

  it('a render that tries to open a popup gets none: it prints, and its slot is reused', async () => {
    await withSlot(async (slot) => {
      const html = `<p id="out">opener</p><script>out.append(window.open('about:blank', 'leak') === null ? ' refused' : ' opened')</script>`;
      expect(await render(slot, html)).toContain('opener refused');
      expect(hasForeignTargets(slot)).toBe(false);
      expect(await resetSlot(slot, 5000)).toBe(true);
    });
  });
});

describe('the pool, render after render', () => {
  let pool: BrowserPool;

  beforeAll(async () => {
    pool = await BrowserPool.start({ policy, concurrency: 1, queueLimit: 4, timeoutMs: 10_000 });
  });
  afterAll(async () => pool?.close());

  const render = async (html: string, account = 'a'): Promise<string> => flatText((await pool.render(account, html, A4)).pdf);
  // Slots are reset after the answer; waiting a little lets the next render take the slot just used.
  const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 300));

  it('whatever the previous render did, the next one starts clean', async () => {
    const before = [
      LEAVE,
      `<script>location = URL.createObjectURL(new Blob(['<script>window.name = "SECRET-NAME"; history.pushState(1, "")<\\/script>'], { type: 'text/html' }))</script>`,
      `<script>window.name = 'SECRET-NAME'; history.pushState('SECRET-STATE', ''); location.hash = 'SECRET'</script>`,
      `<script>window.open('about:blank', 'leak').document.write('SECRET-POPUP'); window.name = 'SECRET-NAME'</script>`,
    ];
    for (const html of before) {
      await render(html, 'a');
      await settle();
      const text = await render(PROBE, 'b');
      expect(text).toContain(PROBE_CLEAN);
      expect(text).not.toContain('SECRET');
    }
  });

  it('a named popup left by one render cannot be found by the next', async () => {
    await render(`<script>window.open('about:blank', 'leak').document.write('SECRET-POPUP')</script>`, 'a');
    await settle();
    const text = await render(
      `<p id="out"></p><script>
      const w = window.open('', 'leak');
      let seen; try { seen = w ? '[' + w.document.body.innerHTML + ']' : 'none'; } catch (e) { seen = e.name; }
      out.textContent = 'popup=' + seen;
      </script>`,
      'b',
    );
    expect(text).toMatch(/popup=(\[\]|none)/);
    expect(text).not.toContain('SECRET');
  });
});
