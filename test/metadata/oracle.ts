/**
 * The browser oracle: loads a page's exact bytes in headless Chromium (scripting off) under its original
 * URL and reads the eight fields from the DOM with DESIGN.md's rules. Nothing leaves the machine: the
 * document is answered by request interception (later navigations, e.g. a meta refresh, get a 204 so the
 * document stays), and every other request fails in Chromium's resolver, which maps every name to nothing.
 */
import puppeteer, { type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import { afterAll, beforeAll } from 'vitest';
import type { Metadata } from '../../src/metadata/types.js';
import { browserBuild, chromiumExecutable } from '../../src/render/browser/chromium-executable.js';

/** The oracle's browser: CHROMIUM_PATH, else what the renderer would start (the headless shell first). */
export function chromiumPath(): string {
  return chromiumExecutable(process.env.CHROMIUM_PATH || undefined) ?? '/usr/bin/chromium';
}

/**
 * Launches chromiumPath() as a test oracle: no sandbox, GPU, background requests, updates or first-run
 * work, then `args` (how its requests must fail).
 */
export function launchOracleChromium(args: string[]): Promise<Browser> {
  const executablePath = chromiumPath();
  return puppeteer.launch({
    executablePath,
    headless: browserBuild(executablePath) === 'chromium-headless-shell' ? 'shell' : true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...args,
    ],
  });
}

/** Launches the headless Chromium the oracle uses. */
export function launchOracleBrowser(): Promise<Browser> {
  return launchOracleChromium([
    '--disable-features=HttpsUpgrades,HttpsFirstBalancedModeAutoEnable',
    '--blink-settings=scriptEnabled=false,imagesEnabled=false',
    // Nothing resolves: a request the oracle does not answer itself fails inside the browser.
    '--host-resolver-rules=MAP * ~NOTFOUND',
  ]);
}

/** The oracle's Chromium for the tests of one describe block: launched before them, closed after them. */
export function oracleBrowserForSuite(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchOracleBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => browser!;
}

/** What the DOM says, plus the document's URL and encoding for diagnostics. */
export interface OracleResult {
  fields: Metadata;
  documentUrl: string;
  characterSet: string;
}

/**
 * One tab of the oracle, reused from page to page: each document is its own navigation (so its own DOM,
 * base URL and encoding), and a new tab per page cost more than reading the page did.
 */
export class OracleTab {
  private document: { url: string; body: string; served: boolean } | undefined;

  private constructor(private readonly page: Page) {}

  /** A tab with scripting off whose document requests this process answers. */
  static async open(context: BrowserContext): Promise<OracleTab> {
    const page = await context.newPage();
    await page.setJavaScriptEnabled(false);
    const tab = new OracleTab(page);
    const cdp = await page.createCDPSession();
    // Only documents are intercepted; every other request dies in the resolver (--host-resolver-rules).
    cdp.on('Fetch.requestPaused', (event: { requestId: string; request: { url: string } }) => {
      const doc = tab.document;
      // The page's own bytes once, for the navigation to its URL; anything else (a meta refresh, a late
      // navigation of the page before) gets a 204, so the document stays.
      const first = doc !== undefined && !doc.served && event.request.url === doc.url;
      if (first) doc.served = true;
      void cdp
        .send('Fetch.fulfillRequest', {
          requestId: event.requestId,
          responseCode: first ? 200 : 204,
          responseHeaders: [{ name: 'content-type', value: 'text/html' }],
          body: first ? doc.body : '',
        })
        .catch(() => undefined);
    });
    await cdp.send('Fetch.enable', { patterns: [{ urlPattern: '*', resourceType: 'Document', requestStage: 'Request' }] });
    return tab;
  }

  /** Serves `bytes` as `text/html` (no charset) at `url` and reads the fields from the resulting DOM. */
  async read(bytes: Uint8Array, url: string): Promise<OracleResult> {
    // Requests carry no fragment (the Fetch domain reports it apart).
    const requested = new URL(url);
    requested.hash = '';
    this.document = { url: requested.href, body: Buffer.from(bytes).toString('base64'), served: false };
    try {
      await this.page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
      return (await this.page.evaluate(READ_FIELDS)) as OracleResult;
    } finally {
      this.document = undefined;
      // The next page's URL may differ from this one by its fragment alone: from a blank page that is a
      // real navigation, never a scroll within the old document.
      await this.page.goto('about:blank').catch(() => undefined);
    }
  }
}

/**
 * Runs inside the page: DESIGN.md's rules over the DOM. A plain string, so no test transform can inject
 * helpers into it. URLs are resolved by the DOM itself (an <a> element: document base URL and encoding).
 */
const READ_FIELDS = `(() => {
  const XHTML = 'http://www.w3.org/1999/xhtml';
  const collapse = (s) => s.replace(/[\\t\\n\\f\\r ]+/g, ' ').replace(/^ /, '').replace(/ $/, '');
  const asciiLower = (s) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const blank = (s) => s === null || collapse(s) === '';
  const html = (sel) => Array.from(document.querySelectorAll(sel)).filter((e) => e.namespaceURI === XHTML);
  const resolve = (value) => {
    try { new URL(value, document.baseURI); } catch { return null; }
    const a = document.createElement('a');
    a.setAttribute('href', value);
    return a.href;
  };
  const titleEl = html('title').find((t) => !blank(t.textContent));
  const metas = html('meta');
  const content = (pred) => {
    const m = metas.find((e) => pred(e) && !blank(e.getAttribute('content')));
    return m ? m.getAttribute('content') : null;
  };
  const og = (tag) =>
    content((m) => asciiLower(m.getAttribute('property') ?? '') === tag) ??
    content((m) => asciiLower(m.getAttribute('name') ?? '') === tag);
  const text = (v) => (v === null ? null : collapse(v) || null);
  const url = (v) => (v === null ? null : resolve(v));
  const links = html('link');
  const link = (...tokens) => {
    const l = links.find((e) => {
      const rel = asciiLower(e.getAttribute('rel') ?? '').split(/[\\t\\n\\f\\r ]+/);
      return tokens.some((t) => rel.includes(t)) && !blank(e.getAttribute('href'));
    });
    return l ? l.getAttribute('href') : null;
  };
  const icon = link('icon') ?? link('apple-touch-icon', 'apple-touch-icon-precomposed');
  return {
    fields: {
      title: text(titleEl ? titleEl.textContent : null),
      description: text(content((m) => asciiLower(m.getAttribute('name') ?? '') === 'description')),
      og_title: text(og('og:title')),
      og_description: text(og('og:description')),
      og_image: url(og('og:image')),
      og_url: url(og('og:url')),
      canonical_url: url(link('canonical')),
      favicon_url: (icon === null ? null : url(icon)) ?? new URL('/favicon.ico', document.URL).href,
    },
    documentUrl: document.URL,
    characterSet: document.characterSet,
  };
})()`;
