/**
 * A render slot: one incognito browser context with one page and its own egress proxy.
 *
 * Why slots are reused at all: a fresh context costs a new renderer process (~200 ms of CPU here), which
 * would halve throughput. A slot is reused only while it is provably clean — the previous render made no
 * network request (so no origin with storage, cookies or cache entries was ever loaded in it: the
 * document itself is an opaque-origin about:blank page, where cookies, localStorage, sessionStorage and
 * IndexedDB are unavailable) and left no other target (popup, worker) behind. Every render starts on a
 * newly navigated about:blank document, so no global survives; `window.name`, the one value that
 * survives a same-tab navigation, is reset. Any other outcome discards the whole context.
 */
import type { Browser, BrowserContext, HTTPRequest, Page } from 'puppeteer-core';
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
    const slot: RenderSlot = { context, page, egress, renders: 0, inflight: 0, crashed: false, navigating: false, navigations: 0, crash };
    const settled = new WeakSet<HTTPRequest>();
    const isMainNavigation = (request: HTTPRequest): boolean =>
      request.isNavigationRequest() && request.frame() === page.mainFrame();
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
    return slot;
  } catch (err) {
    await context?.close().catch(() => undefined);
    await egress.close();
    throw err;
  }
}

/**
 * Whether anything the document started lives on in the context (popups, workers, frames). Browser UI
 * (chrome:// pages, which a document cannot open) does not count.
 */
export function hasForeignTargets(slot: RenderSlot): boolean {
  const own = slot.page.target();
  return slot.context.targets().some((t) => t !== own && !/^chrome(-untrusted)?:/.test(t.url()));
}

/** Navigates the page to a fresh about:blank document; resolves to false when the slot is no longer clean. */
export async function resetSlot(slot: RenderSlot, timeoutMs: number): Promise<boolean> {
  if (slot.crashed || slot.egress.requests > 0) return false;
  await slot.page.goto('about:blank', { waitUntil: 'load', timeout: timeoutMs });
  slot.inflight = 0;
  slot.navigating = false;
  slot.navigations = 0;
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
