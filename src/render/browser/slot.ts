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
import type { BrowserContext, CDPSession, Target } from 'puppeteer-core';
import { RenderError } from '../../errors.js';
import { type RenderEgress, type RenderEgressOptions, startRenderEgress } from '../../net/render-egress.js';
import { withTimeout } from '../../with-timeout.js';
import type { LaunchedChromium } from './chromium.js';
import { type FrameSender, frameSender } from './frames.js';

/** The window a document lays out in before it prints (what a read of its print layout puts back afterwards). */
export const SLOT_WINDOW = {
  width: 800,
  height: 600,
  deviceScaleFactor: 1,
  mobile: false,
  screenOrientation: { angle: 0, type: 'portraitPrimary' as const },
};
/** The media a document sees before it prints. */
export const SLOT_MEDIA = { media: '', features: [{ name: 'prefers-reduced-motion', value: 'reduce' }] };

/** One isolated place to render, used by one render at a time. */
export interface RenderSlot {
  readonly context: BrowserContext;
  /** The context's one page, driven over a DevTools session of its own (cdp.ts says why not a puppeteer Page). */
  readonly target: Target;
  readonly session: CDPSession;
  readonly egress: RenderEgress;
  /** Renders done in this slot. */
  renders: number;
  /**
   * Document requests (any scheme but blob: and data: subresources, as the page reports them) not
   * finished yet, by request id, each with whether it is a main-frame navigation.
   */
  readonly requests: Map<string, boolean>;
  /** The request id of each stylesheet the document asked for, by URL: cross-references read their text. */
  readonly stylesheets: Map<string, string>;
  /** Set when the page's renderer crashed. */
  crashed: boolean;
  /** A main-frame navigation started by the document has not committed yet. */
  navigating: boolean;
  /** Main-frame navigations committed since the render started (the document moved itself), history changes included. */
  navigations: number;
  /**
   * When (epoch ms) a frame of the document last asked to navigate (script, meta refresh, form), 0 if
   * never. The renderer reports this before the answer to any later call into the page, unlike the
   * navigation request itself, which the browser reports a little later.
   */
  navigationRequestedAt: number;
  /** The main frame asked to navigate since the render started (whether or not it got anywhere). */
  mainNavigationRequested: boolean;
  /**
   * Aborts with RENDER_FAILED when the renderer crashes (calls into the page would hang until the
   * deadline). A signal, so each render's wait on it is removed again (a slot serves many renders).
   */
  readonly crash: AbortSignal;
  /** The id of the page's main frame (it keeps it across navigations). */
  frameId: string;
  /**
   * A remote object of the fresh document, with no prototype and no global leading to it: what one call
   * into the page leaves for the next (the report's take function) is kept on it, out of the document's
   * reach. Made with each fresh document; gone with a navigation.
   */
  holder: string | null;
  /** The isolated world a render read the document in (isolatedWorld), and the navigation count it was made at. */
  world: { contextId: Promise<number>; navigations: number } | null;
  /**
   * On the headless shell, what sends the page its frames: it gets them only when a render asks
   * (frames.ts). Null on full Chromium, which has no such control: its compositor sends them at its own pace.
   */
  readonly frames: FrameSender | null;
}

/** Opens a context routed through a new egress proxy, with one page ready on about:blank. */
export async function createSlot(launched: LaunchedChromium, egressOptions: RenderEgressOptions): Promise<RenderSlot> {
  const egress = await startRenderEgress(egressOptions);
  let context: BrowserContext | undefined;
  try {
    context = await launched.browser.createBrowserContext({
      proxyServer: egress.proxyUrl,
      // Chromium bypasses proxies for loopback by default; "<-loopback>" removes that exception.
      proxyBypassList: ['<-loopback>'],
      downloadBehavior: { policy: 'deny' },
    });
    const framesSent = launched.build === 'chromium-headless-shell';
    const target = await openPage(launched.client, context, framesSent);
    const crash = new AbortController();
    const onCrash = (err: unknown) => crash.abort(err);
    const slot: RenderSlot = {
      context,
      target,
      session: await target.createCDPSession(),
      egress,
      renders: 0,
      requests: new Map(),
      stylesheets: new Map(),
      crashed: false,
      navigating: false,
      navigations: 0,
      navigationRequestedAt: 0,
      mainNavigationRequested: false,
      crash: crash.signal,
      frameId: '',
      holder: null,
      world: null,
      frames: framesSent ? frameSender(launched.browser) : null,
    };
    await watchPage(slot, onCrash);
    // Documents lay out in a window of this size before they print (scripts that measure it at load see
    // it): puppeteer's default viewport, which a bare page target does not get by itself.
    await slot.session.send('Emulation.setDeviceMetricsOverride', SLOT_WINDOW);
    // Paper does not move: documents that offer a still version of their motion get to show it. Most do
    // not, so the renderer also brings every animation to its end before printing (document/page-script.ts).
    await slot.session.send('Emulation.setEmulatedMedia', SLOT_MEDIA);
    // The generic `monospace` (and <pre>, <code>) is the full browser's "Monospace" (fontconfig's choice,
    // DejaVu Sans Mono on Debian): the headless shell has no browser preferences and would fall back to
    // Blink's own default (Liberation Mono), so the same document would print in another font there.
    await slot.session.send('Page.setFontFamilies', { fontFamilies: { fixed: 'Monospace' } });
    await prepareDocument(slot);
    return slot;
  } catch (err) {
    await context?.close().catch(() => undefined);
    await egress.close();
    throw err;
  }
}

/** Creates the context's page target, without a puppeteer Page around it; `framesSent`: see RenderSlot. */
async function openPage(client: CDPSession, context: BrowserContext, framesSent: boolean): Promise<Target> {
  await client.send('Target.createTarget', {
    url: 'about:blank',
    browserContextId: context.id,
    ...(framesSent ? { enableBeginFrameControl: true } : {}),
  });
  // The context is new: its only page is the one just created.
  return context.waitForTarget((t) => t.type() === 'page', { timeout: 10_000 });
}

/**
 * Keeps the slot's requests, navigations and crash flag up to date from the page's events, and dismisses
 * dialogs (alert/confirm/prompt/beforeunload would block the document forever).
 */
async function watchPage(slot: RenderSlot, onCrash: (err: unknown) => void): Promise<void> {
  const { session, requests } = slot;
  // The main frame keeps its id across navigations.
  const mainFrameId = (await session.send('Page.getFrameTree')).frameTree.frame.id;
  slot.frameId = mainFrameId;
  // The document request of each frame inside the page, by frame id. Where Chromium isolates sites (full
  // Chromium; the shell keeps frames in the page's renderer), a cross-site frame's document moves to a
  // renderer of its own: this session hears the frame detach ("swap") and never hears its request finish,
  // which then counted as pending until RENDER_IDLE_MAX_MS ran out and was reported as still loading. So
  // the request is let go with the frame: the document's load event waits for a frame it had by then; one
  // a script adds later is not waited for on full Chromium (its requests are not heard at all).
  const frameDocuments = new Map<string, string>();
  session.on('Page.frameDetached', (event) => {
    const requestId = frameDocuments.get(event.frameId);
    frameDocuments.delete(event.frameId);
    if (requestId !== undefined) requests.delete(requestId);
  });
  session.on('Network.requestWillBeSent', (event) => {
    // A redirect keeps the request id: the same request, still pending.
    const mainNavigation = event.requestId === event.loaderId && event.type === 'Document' && event.frameId === mainFrameId;
    // A blob: or data: subresource is read from memory and cannot keep a document waiting; a worker's
    // blob: script is even reported finished to the worker's target only, so it would seem pending forever.
    if (!mainNavigation && /^(blob|data):/i.test(event.request.url)) return;
    requests.set(event.requestId, mainNavigation);
    if (event.type === 'Document' && event.frameId !== undefined && event.frameId !== mainFrameId) {
      frameDocuments.set(event.frameId, event.requestId);
    }
    if (event.type === 'Stylesheet') slot.stylesheets.set(event.request.url, event.requestId);
    if (mainNavigation) slot.navigating = true;
  });
  const done = (requestId: string, failed: boolean): void => {
    const mainNavigation = requests.get(requestId);
    requests.delete(requestId);
    // A refused navigation never commits; a successful one clears the flag in frameNavigated.
    if (mainNavigation && failed) slot.navigating = false;
  };
  session.on('Network.loadingFinished', (event) => done(event.requestId, false));
  session.on('Network.loadingFailed', (event) => done(event.requestId, true));
  session.on('Page.frameNavigated', (event) => {
    if (event.frame.parentId !== undefined) return;
    slot.navigating = false;
    slot.navigations += 1;
  });
  // pushState, replaceState and fragment changes leave a history entry the next render must not see.
  session.on('Page.navigatedWithinDocument', (event) => {
    if (event.frameId === mainFrameId) slot.navigations += 1;
  });
  session.on('Page.frameRequestedNavigation', (event) => {
    const main = event.frameId === mainFrameId;
    if (main) slot.mainNavigationRequested = true;
    // A subframe's about:srcdoc, blob: or data: document has nothing left to load once it is reported.
    if (main || /^https?:/i.test(event.url)) slot.navigationRequestedAt = Date.now();
  });
  session.on('Page.javascriptDialogOpening', () => {
    session.send('Page.handleJavaScriptDialog', { accept: false }).catch(() => undefined);
  });
  session.on('Inspector.targetCrashed', () => {
    slot.crashed = true;
    onCrash(new RenderError('RENDER_FAILED', 'the document crashed the renderer (out of memory or a Chromium fault)'));
  });
  await Promise.all([session.send('Page.enable'), session.send('Network.enable')]);
}

/**
 * Whether anything the document started lives on in the context (popups, workers, frames). Browser UI
 * (chrome:// pages, which a document cannot open) does not count.
 */
export function hasForeignTargets(slot: RenderSlot): boolean {
  return slot.context.targets().some((t) => t !== slot.target && !/^chrome(-untrusted)?:/.test(t.url()));
}

/** Whether the last render did anything that could leave state behind in the context (see the file comment). */
export function leftState(slot: RenderSlot): boolean {
  return slot.crashed || slot.egress.requests > 0 || slot.navigations > 0 || slot.navigating || slot.mainNavigationRequested;
}

/** Navigates the page to a fresh about:blank document; resolves to false when the slot is no longer clean. */
export async function resetSlot(slot: RenderSlot, timeoutMs: number): Promise<boolean> {
  if (leftState(slot)) return false;
  const loaded = new Promise<void>((resolve) => slot.session.once('Page.loadEventFired', () => resolve()));
  const navigated = slot.session.send('Page.navigate', { url: 'about:blank' }).then(({ errorText }) => {
    if (errorText) throw new Error(`about:blank did not load: ${errorText}`);
    return loaded;
  });
  await withTimeout(navigated, timeoutMs, () => new Error(`about:blank did not load within ${timeoutMs} ms`));
  slot.requests.clear();
  slot.stylesheets.clear();
  slot.navigating = false;
  slot.navigations = 0;
  slot.navigationRequestedAt = 0;
  slot.mainNavigationRequested = false;
  if (slot.crashed || slot.egress.requests > 0 || hasForeignTargets(slot)) return false;
  await prepareDocument(slot);
  return true;
}

/**
 * Makes the fresh document's holder before the render needs it (document.open() keeps it: it replaces the
 * document's content, not its window).
 */
async function prepareDocument(slot: RenderSlot): Promise<void> {
  const held = await slot.session.send('Runtime.evaluate', { expression: 'Object.create(null)' });
  slot.holder = held.result.objectId ?? null;
  slot.world = null;
}

/** The name of the isolated world the render reads the document in (DevTools shows it by this name). */
const ISOLATED_WORLD = 'pageworks';

/**
 * The execution context id of an isolated world on the page's current document, made the first time a
 * render needs one (a declaration, a failed font, a navigated document: document/renderer.ts) and kept
 * until the document navigates. The document's scripts cannot reach into it, so the DOM methods used
 * there are the browser's own. Chromium takes about 4 ms to make one, so most renders never ask.
 */
export function isolatedWorld(slot: RenderSlot): Promise<number> {
  if (slot.world && slot.world.navigations === slot.navigations) return slot.world.contextId;
  const contextId = slot.session
    .send('Page.createIsolatedWorld', { frameId: slot.frameId, worldName: ISOLATED_WORLD })
    .then(({ executionContextId }) => executionContextId);
  slot.world = { contextId, navigations: slot.navigations };
  return contextId;
}

/** Closes the context (which kills its renderer, even one stuck in a script) and the proxy. */
export async function closeSlot(slot: RenderSlot, graceMs = 5000): Promise<void> {
  await Promise.race([
    slot.context.close().catch(() => undefined),
    new Promise((resolve) => setTimeout(resolve, graceMs).unref()),
  ]);
  await slot.egress.close();
}
