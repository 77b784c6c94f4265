/**
 * A render slot: one incognito browser context with one page and its own egress proxy.
 *
 * Why slots are reused at all: a fresh context costs a new renderer process (~200 ms of CPU here), which
 * would halve throughput. A slot is reused only while it is provably clean — the previous render made no
 * network request (so no origin with storage, cookies or cache entries was ever loaded in it: the
 * document itself is an opaque-origin about:blank page, where cookies, localStorage, sessionStorage and
 * IndexedDB are unavailable), never navigated its main frame (not even to a URL that needs no network,
 * such as a blob: document) and left no other target (popup, worker) behind. Every render starts on a
 * newly navigated about:blank document, so no global survives; `window.name`, the one value that
 * survives a same-tab navigation, is reset. Any other outcome discards the whole context.
 */
import type { Browser, BrowserContext, CDPSession, HTTPRequest, Page } from 'puppeteer-core';
import { RenderError } from '../errors.js';
import { type RenderEgress, type RenderEgressOptions, startRenderEgress } from '../net/render-egress.js';

/** One isolated place to render, used by one render at a time. */
export interface RenderSlot {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly egress: RenderEgress;
  /** Renders done in this slot. */
  renders: number;
  /** Document requests (any scheme, as the page reports them) not finished yet. */
  inflight: number;
  /** Set when the page's renderer crashed. */
  crashed: boolean;
  /** A main-frame navigation started by the document has not committed yet. */
  navigating: boolean;
  /** Main-frame navigations committed since the render started (the document moved itself). */
  navigations: number;
  /**
   * When (epoch ms) a frame of the document last asked to navigate (script, meta refresh, form), 0 if
   * never. The renderer reports this before the answer to any later call into the page, unlike the
   * navigation request itself, which the browser reports a little later.
   */
  navigationRequestedAt: number;
  /** The main frame asked to navigate since the render started (whether or not it got anywhere). */
  mainNavigationRequested: boolean;
  /** Rejects with RENDER_FAILED when the renderer crashes (puppeteer's own calls hang for a minute then). */
  readonly crash: Promise<never>;
}

/** Opens a context routed through a new egress proxy, with one page ready on about:blank. */
export async function createSlot(browser: Browser, egressOptions: RenderEgressOptions): Promise<RenderSlot> {
  const egress = await startRenderEgress(egressOptions);
  let context: BrowserContext | undefined;
  try {
    context = await browser.createBrowserContext({
      proxyServer: egress.proxyUrl,
      // Chromium bypasses proxies for loopback by default; "<-loopback>" removes that exception.
      proxyBypassList: ['<-loopback>'],
      downloadBehavior: { policy: 'deny' },
    });
    const page = await context.newPage();
    let onCrash!: (err: unknown) => void;
    const crash = new Promise<never>((_, reject) => (onCrash = reject));
    crash.catch(() => undefined);
    const slot: RenderSlot = {
      context,
      page,
      egress,
      renders: 0,
      inflight: 0,
      crashed: false,
      navigating: false,
      navigations: 0,
      navigationRequestedAt: 0,
      mainNavigationRequested: false,
      crash,
    };
    watchPage(slot, onCrash);
    await watchNavigationRequests(slot, await page.createCDPSession());
    return slot;
  } catch (err) {
    await context?.close().catch(() => undefined);
    await egress.close();
    throw err;
  }
}

/** Keeps the slot's counters (requests, navigations, crash) up to date from the page's events. */
function watchPage(slot: RenderSlot, onCrash: (err: unknown) => void): void {
  const { page } = slot;
  const settled = new WeakSet<HTTPRequest>();
  const isMainNavigation = (request: HTTPRequest): boolean => request.isNavigationRequest() && request.frame() === page.mainFrame();
  page.on('request', (request) => {
    slot.inflight += 1;
    if (isMainNavigation(request)) slot.navigating = true;
  });
  page.on('framenavigated', (frame) => {
    if (frame !== page.mainFrame()) return;
    slot.navigating = false;
    slot.navigations += 1;
  });
  const done = (request: HTTPRequest): void => {
    if (settled.has(request)) return;
    settled.add(request);
    slot.inflight = Math.max(0, slot.inflight - 1);
    // A refused navigation never commits; a successful one clears the flag in framenavigated.
    if (isMainNavigation(request) && request.failure()) slot.navigating = false;
  };
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  page.on('error', () => {
    slot.crashed = true;
    onCrash(new RenderError('RENDER_FAILED', 'the document crashed the renderer (out of memory or a Chromium fault)'));
  });
  // alert/confirm/prompt/beforeunload would block the document forever.
  page.on('dialog', (dialog) => void dialog.dismiss().catch(() => undefined));
}

/**
 * Navigation requests as the renderer reports them (Page.frameRequestedNavigation), on a session of our
 * own: puppeteer does not surface them. A subframe's navigation to the network is a pending load too.
 */
async function watchNavigationRequests(slot: RenderSlot, session: CDPSession): Promise<void> {
  // The main frame keeps its id across navigations.
  const mainFrameId = (await session.send('Page.getFrameTree')).frameTree.frame.id;
  session.on('Page.frameRequestedNavigation', (event) => {
    const main = event.frameId === mainFrameId;
    if (main) slot.mainNavigationRequested = true;
    // A subframe's about:srcdoc, blob: or data: document has nothing left to load once it is reported.
    if (main || /^https?:/i.test(event.url)) slot.navigationRequestedAt = Date.now();
  });
  await session.send('Page.enable');
}

/**
 * Whether anything the document started lives on in the context (popups, workers, frames). Browser UI
 * (chrome:// pages, which a document cannot open) does not count.
 */
export function hasForeignTargets(slot: RenderSlot): boolean {
  const own = slot.page.target();
  return slot.context.targets().some((t) => t !== own && !/^chrome(-untrusted)?:/.test(t.url()));
}

/** Whether the last render did anything that could leave state behind in the context (see the file comment). */
export function leftState(slot: RenderSlot): boolean {
  return slot.crashed || slot.egress.requests > 0 || slot.navigations > 0 || slot.navigating || slot.mainNavigationRequested;
}

/** Navigates the page to a fresh about:blank document; resolves to false when the slot is no longer clean. */
export async function resetSlot(slot: RenderSlot, timeoutMs: number): Promise<boolean> {
  if (leftState(slot)) return false;
  await slot.page.goto('about:blank', { waitUntil: 'load', timeout: timeoutMs });
  slot.inflight = 0;
  slot.navigating = false;
  slot.navigations = 0;
  slot.navigationRequestedAt = 0;
  slot.mainNavigationRequested = false;
  return !slot.crashed && slot.egress.requests === 0 && !hasForeignTargets(slot);
}

/** Closes the context (which kills its renderer, even one stuck in a script) and the proxy. */
export async function closeSlot(slot: RenderSlot, graceMs = 5000): Promise<void> {
  await Promise.race([
    slot.context.close().catch(() => undefined),
    new Promise((resolve) => setTimeout(resolve, graceMs).unref()),
  ]);
  await slot.egress.close();
}
