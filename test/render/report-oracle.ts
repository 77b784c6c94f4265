/**
 * The render report's oracle: what a document asked the network for, seen by a bare page of the same
 * browser binary the service renders with, through none of the service's report code.
 *
 * How it loads a document: a fresh incognito context, one puppeteer page with its own compositor frames
 * (no frame control), the HTML written into about:blank with `page.setContent` (a document.write, as the
 * service writes it: the same opaque origin and base URL). Every https (and any other) request Chromium
 * sends to the network is failed as a name that does not resolve, as the service's egress policy refuses
 * every host when no name resolves (`noDns`). Plain http requests are let on to the browser's proxy, a
 * closed loopback port: a host on Chromium's HSTS list is then asked for over https first, as in the
 * service, and the rest fail there. Nothing can leave the machine: every connection, loopback included,
 * goes to that closed port, and no name resolves.
 *
 * What it records, up to the end of the print: each request the document made (its URL as Chromium
 * reports it, the new URL of a redirect as a request of its own, its resource type, milliseconds after
 * the start), whether it failed (any request that failed and was not cancelled: those refused here, and
 * those the browser refused by itself, a data: or blob: URL it cannot read, a request the document's
 * Content-Security-Policy forbids), whether it came after the load and while printing, and the font
 * families in state `error` as the print starts. As failed requests too, what the document asked for that
 * no request could get, read from the DOM as the print starts: an image, style sheet, script or frame
 * whose address is relative to about:blank (Chromium asks for nothing; recorded as written), and an
 * inline (data: or blob:) image that arrived and is empty, as a broken image is.
 *
 * When it prints, by the service's rule (docs/rendering.md), written here again: after the load event
 * and the fonts, once no request has been outstanding for QUIET_MS, or IDLE_MAX_MS after the load whatever
 * is outstanding. The service makes a lazy image eager before its document closes; the oracle does so once
 * the document loaded. What Chromium asks for while printing (a srcset's candidate for the paper's width)
 * is recorded as such: report-oracle-compare.ts does not require it.
 */
import net, { type AddressInfo } from 'node:net';
import type { Browser, CDPSession, Page } from 'puppeteer-core';
import { launchOracleChromium } from '../metadata/oracle.js';

/** The network quiet after which the oracle prints (the service's rule: docs/rendering.md). */
const QUIET_MS = 50;
/** Longest wait after the load for the network to go quiet (the service's RENDER_IDLE_MAX_MS default). */
const IDLE_MAX_MS = 2000;

/** Longest wait after the print for the failures of requests made while printing to be told. */
const SETTLE_MS = 1000;

/** One request the document made, as the oracle saw it. */
export interface OracleRequest {
  url: string;
  type: string;
  /** Milliseconds after the document started loading. */
  at: number;
  /** Failed: the oracle refused it (any network request), or the browser could not read it (data:). */
  failed: boolean;
  /** Made after the load event. */
  late: boolean;
  /** Made while the document printed (Chromium lays it out for paper: a srcset's other candidate, print-only CSS). */
  printing: boolean;
}

/** What the oracle saw of one document. */
export interface OracleLoad {
  requests: OracleRequest[];
  /** Font families whose FontFace ended in state `error`, as the print starts. */
  fontErrors: string[];
  /** Milliseconds from the start to the load event, and to the end of the print. */
  loadMs: number;
  printMs: number;
}

/** The oracle's browser: the same executable as the service's, its network a closed loopback port. */
export class ReportOracle {
  private constructor(private readonly browser: Browser) {}

  /** Launches the oracle's Chromium (CHROMIUM_PATH, else what the renderer would start). */
  static async launch(): Promise<ReportOracle> {
    const closed = await closedPort();
    const browser = await launchOracleChromium([
      // Belt and braces under the Fetch interception (which a worker's requests escape): every connection
      // goes to a closed loopback port, loopback included, and no name resolves.
      `--proxy-server=http://127.0.0.1:${closed}`,
      '--proxy-bypass-list=<-loopback>',
      '--host-resolver-rules=MAP * ~NOTFOUND',
    ]);
    return new ReportOracle(browser);
  }

  /** Loads `html` as described in the file comment and prints it; rejects after `timeoutMs`. */
  async load(html: string, timeoutMs = 30_000): Promise<OracleLoad> {
    const context = await this.browser.createBrowserContext();
    try {
      const page = await context.newPage();
      const session = await page.createCDPSession();
      return await withTimeout(observe(page, session, html), timeoutMs);
    } finally {
      await context.close().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    await this.browser.close();
  }
}

async function observe(page: Page, session: CDPSession, html: string): Promise<OracleLoad> {
  const start = performance.now();
  let loadedAt = Number.POSITIVE_INFINITY;
  let printing = false;
  let printed = false;
  const requests: OracleRequest[] = [];
  // The latest record of each request id (a redirect keeps the id: its new URL is a new record).
  const byId = new Map<string, OracleRequest>();
  const outstanding = new Set<string>();
  let lastActivity = performance.now();
  session.on('Network.requestWillBeSent', (event) => {
    lastActivity = performance.now();
    if (printed) return;
    outstanding.add(event.requestId);
    const at = performance.now();
    const request = {
      url: event.request.url,
      type: event.type ?? 'Other',
      at: Math.round(at - start),
      failed: false,
      late: at > loadedAt,
      printing,
    };
    requests.push(request);
    byId.set(event.requestId, request);
  });
  session.on('Network.loadingFinished', (event) => {
    outstanding.delete(event.requestId);
    lastActivity = performance.now();
  });
  session.on('Network.loadingFailed', (event) => {
    outstanding.delete(event.requestId);
    lastActivity = performance.now();
    // A cancelled request is one the document dropped (or Chromium gave up on as it printed): not a failure.
    const known = byId.get(event.requestId);
    if (known && !event.canceled) known.failed = true;
  });
  session.on('Fetch.requestPaused', (event) => {
    // Plain http goes on to the closed proxy, so that Chromium's own upgrade of a host on its HSTS list
    // to https happens first, as in the service's browser (whose proxy sees the https request); all else
    // fails here as a name that does not resolve.
    const plain = /^http:/i.test(event.request.url);
    const answer = plain
      ? session.send('Fetch.continueRequest', { requestId: event.requestId })
      : session.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'NameNotResolved' });
    answer.catch(() => undefined);
  });
  await session.send('Network.enable');
  await session.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] });
  await page.setContent(html, { waitUntil: 'load', timeout: 0 });
  await page.evaluate(() => document.fonts.ready.then(() => undefined));
  loadedAt = performance.now();
  // The service makes lazy images eager (on paper every one is seen): here they are, once the document loaded.
  await page.evaluate(() => {
    document.querySelectorAll('img').forEach((img) => {
      if (img.loading === 'lazy') img.loading = 'eager';
    });
  });
  for (;;) {
    const now = performance.now();
    if (now - loadedAt >= IDLE_MAX_MS) break;
    if (outstanding.size === 0 && now - lastActivity >= QUIET_MS) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  for (const unasked of await page.evaluate(readUnasked))
    requests.push({ ...unasked, at: Math.round(performance.now() - start), failed: true, late: true, printing: false });
  const fontErrors = await page.evaluate(() => {
    const failed = new Set<string>();
    document.fonts.forEach((face) => {
      if (face.status === 'error') failed.add(face.family.replace(/^["']|["']$/g, ''));
    });
    return [...failed];
  });
  printing = true;
  await page.pdf({ format: 'A4', timeout: 0 });
  printed = true;
  // What started while printing is refused at once, but its failure may be told after the print's answer.
  const settleBy = performance.now() + SETTLE_MS;
  while (outstanding.size > 0 && performance.now() < settleBy) await new Promise((resolve) => setTimeout(resolve, 20));
  return { requests, fontErrors, loadMs: Math.round(loadedAt - start), printMs: Math.round(performance.now() - start) };
}

/** Runs in the page: what the document asked for without a request to show for it (see the file comment). */
function readUnasked(): Array<{ url: string; type: string }> {
  const found: Array<{ url: string; type: string }> = [];
  const asWritten = (value: string | null | undefined): string | null => {
    const written = (value ?? '').trim();
    if (written === '' || /^[a-z][a-z\d+.-]*:/i.test(written)) return null;
    try {
      new URL(written, document.baseURI);
      return null;
    } catch {
      return written;
    }
  };
  for (const image of Array.from(document.images)) {
    if (!image.complete || image.naturalWidth > 0) continue;
    if (/^(data|blob):/i.test(image.currentSrc)) found.push({ url: image.currentSrc, type: 'Image' });
    if (image.currentSrc !== '') continue;
    const written = asWritten(image.getAttribute('src') ?? image.getAttribute('srcset')?.trim().split(/\s+/)[0]);
    if (written !== null) found.push({ url: written, type: 'Image' });
  }
  const kinds: Array<[string, string, string]> = [
    ['link[rel~="stylesheet" i]', 'href', 'Stylesheet'],
    ['script', 'src', 'Script'],
    ['iframe, frame', 'src', 'Document'],
  ];
  for (const [selector, attribute, type] of kinds)
    for (const element of Array.from(document.querySelectorAll(selector))) {
      const written = asWritten(element.getAttribute(attribute));
      if (written !== null) found.push({ url: written, type });
    }
  return found;
}

/** A loopback port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the oracle's load took over ${ms} ms`)), ms);
  });
  return Promise.race([work, expiry]).finally(() => clearTimeout(timer));
}
