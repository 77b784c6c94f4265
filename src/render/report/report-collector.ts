/**
 * Collects one render's report (docs/rendering.md#when-a-document-cannot-get-everything) from what the render sees anyway: the page's
 * network events on the slot's DevTools session, the egress proxy's refusals (joined to the request that
 * met them), and what the page hands over with the answer of a call the render makes regardless
 * (report-page.ts). Nothing here adds a round trip to the page.
 */
import type { CDPSession, Protocol } from 'puppeteer-core';
import type { EgressRefusal, RefusalReason } from '../../net/egress-refusal.js';
import type { BlockReason, NetworkFailure, ReportEntry } from '../../report/report.js';
import { PAGE_LIMITS } from './report-page.js';
import { fitEntries, keepEntries, MAX_ENTRIES_BYTES } from './report-size.js';
import {
  blockedEntry,
  causeOf,
  failedEntry,
  fontEntry,
  framesMissedEntry,
  notReadyEntry,
  pendingEntry,
  scriptEntry,
  truncatedEntry,
} from './report-words.js';

/** A report keeps this many entries, then one `truncated` (report-page.ts keeps as many script errors). */
export const MAX_ENTRIES = PAGE_LIMITS.errors;
/** Failed requests kept while the render runs; a document cannot make more than its request cap anyway. */
const MAX_FAILURES = 1000;

const BLOCK_REASONS = new Set<RefusalReason>(['private_address', 'unresolvable', 'scheme', 'too_large']);

/** A request that failed, as the page's network events said, in the order met. */
interface Failure {
  at: number;
  requestId: string;
  url: string;
  type: string | undefined;
  status?: number;
  errorText?: string;
  /** Why Chromium stopped the request before it left (`csp`: the document's own policy), when it did. */
  blockedReason?: string;
}

/**
 * Chromium's net errors in the report's words; null for a cancellation (the document dropped it, or it
 * printed). What is not named here broke the connection or the answer (`ERR_EMPTY_RESPONSE`,
 * `ERR_CONTENT_LENGTH_MISMATCH`, `ERR_CONNECTION_RESET`): `reset`.
 */
function networkFailure(f: Pick<Failure, 'errorText' | 'blockedReason' | 'type'>): NetworkFailure | null {
  const errorText = f.errorText ?? '';
  if (/ERR_ABORTED/.test(errorText)) return null;
  if (errorText === 'cors') return 'cors';
  if (/ERR_CONNECTION_REFUSED|ERR_TUNNEL_CONNECTION_FAILED|ERR_ADDRESS_UNREACHABLE/.test(errorText)) return 'refused';
  if (/TIMED_OUT/.test(errorText)) return 'timeout';
  if (/ERR_CERT_|ERR_SSL_|_SSL_|ERR_BAD_SSL/.test(errorText)) return 'tls';
  // Opaque Response Blocking: an image, style sheet or script whose answer is a web page, JSON or XML.
  if (/ERR_BLOCKED_BY_ORB/.test(errorText)) return 'orb';
  if (/ERR_BLOCKED_BY_RESPONSE/.test(errorText)) {
    // A frame whose server does not let other pages show it (X-Frame-Options, frame-ancestors).
    if (f.type === 'Document') return 'framing';
    // Cross-Origin-Resource-Policy: `corp-not-same-origin`, `corp-not-same-site` and their kin.
    if (f.blockedReason?.startsWith('corp')) return 'corp';
  }
  if (/ERR_CONTENT_DECODING_FAILED/.test(errorText)) return 'decoding';
  if (/ERR_TOO_MANY_REDIRECTS/.test(errorText)) return 'redirects';
  return 'reset';
}

/** Whether the address carries a user name or password. */
function hasUserinfo(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== '' || parsed.password !== '';
  } catch {
    return false;
  }
}

/** The proxy's key of a request: its URL for plain http, `host:port` for a tunnel (https, ws, wss). */
function proxyKeys(url: string): string[] {
  try {
    const u = new URL(url);
    const port = u.port || (u.protocol === 'https:' || u.protocol === 'wss:' ? '443' : '80');
    return u.protocol === 'http:' ? [u.href, `${u.hostname}:${port}`] : [`${u.hostname}:${port}`];
  } catch {
    return [];
  }
}

/** Whether the page may load this scheme at all; another is refused by Chromium before the proxy sees it. */
const LOADABLE = /^(https?|wss?|data|blob|about):/i;

/** One render's report, from its start to its print. */
export class ReportCollector {
  private readonly urls = new Map<string, { url: string; type?: string; failed?: boolean }>();
  private readonly failures: Failure[] = [];
  private readonly statuses = new Map<string, number>();
  private droppedFailures = 0;
  private readonly errors: Array<[number, string]> = [];
  private pageDropped = 0;
  private readonly fonts = new Map<string, string[]>();
  private broken: Array<{ at: number; url: string; why: 'relative' | 'undecodable' }> = [];
  private extra: Array<{ at: number; entry: ReportEntry }> = [];
  private readonly listeners: Array<[string, (event: never) => void]>;

  constructor(private readonly session: CDPSession) {
    const sent = (event: Protocol.Network.RequestWillBeSentEvent): void => {
      // A redirect keeps the request id: the URL that failed is the last one.
      this.urls.set(event.requestId, { url: event.request.url, type: event.type });
    };
    const response = (event: Protocol.Network.ResponseReceivedEvent): void => {
      if (event.response.status >= 400) this.fail(event.requestId, { status: event.response.status });
    };
    const failed = (event: Protocol.Network.LoadingFailedEvent): void => {
      if (event.canceled) return;
      this.fail(event.requestId, {
        errorText: event.corsErrorStatus ? 'cors' : event.errorText,
        blockedReason: event.blockedReason,
      });
    };
    // A response the page may not read (a cross-origin font without Access-Control-Allow-Origin) is only
    // reported as a CORS failure; its status comes with the extra info, before or after.
    const extra = (event: Protocol.Network.ResponseReceivedExtraInfoEvent): void => {
      if (event.statusCode >= 400) this.statuses.set(event.requestId, event.statusCode);
    };
    this.listeners = [
      ['Network.requestWillBeSent', sent as (event: never) => void],
      ['Network.responseReceived', response as (event: never) => void],
      ['Network.loadingFailed', failed as (event: never) => void],
      ['Network.responseReceivedExtraInfo', extra as (event: never) => void],
    ];
    for (const [name, fn] of this.listeners) session.on(name as never, fn as never);
  }

  private fail(requestId: string, what: { status?: number; errorText?: string; blockedReason?: string }): void {
    const known = this.urls.get(requestId);
    // A response that answered 404 and then failed to finish (a font Chromium gives up on) is one failure.
    if (!known || known.failed) return;
    known.failed = true;
    if (this.failures.length >= MAX_FAILURES) {
      this.droppedFailures += 1;
      return;
    }
    this.failures.push({ at: Date.now(), requestId, url: known.url, type: known.type, ...what });
  }

  /**
   * Takes the script errors the page handed over (each call hands over what is new since the last).
   * They crossed from the page: only what has the shape, count and length the page part gives is kept.
   */
  addPage(page: unknown): void {
    const checked = checkedErrors(page);
    if (!checked) return;
    for (const error of checked.errors) {
      if (this.errors.length >= PAGE_LIMITS.errors) break;
      this.errors.push(error);
    }
    this.pageDropped = Math.max(this.pageDropped, checked.dropped);
  }

  /** Takes the failed fonts read in the isolated world, checked like addPage's errors. */
  addFonts(fonts: unknown): void {
    if (!Array.isArray(fonts)) return;
    for (const font of fonts.slice(0, PAGE_LIMITS.fonts)) {
      const family = boundedText(font?.family, PAGE_LIMITS.text);
      if (family === undefined || this.fonts.has(family)) continue;
      const urls = Array.isArray(font.urls) ? font.urls.slice(0, PAGE_LIMITS.urls) : [];
      this.fonts.set(
        family,
        (urls as unknown[]).map((url) => boundedText(url, PAGE_LIMITS.url)).filter((url): url is string => url !== undefined),
      );
    }
  }

  /** Takes what the isolated world found asked for and not got (report-page.ts brokenResources), checked like addPage's errors. */
  addBroken(broken: unknown): void {
    if (!Array.isArray(broken)) return;
    for (const item of broken.slice(0, PAGE_LIMITS.broken)) {
      const url = boundedText(item?.url, PAGE_LIMITS.url);
      if (url === undefined || (item.why !== 'relative' && item.why !== 'undecodable')) continue;
      if (this.broken.some((b) => b.url === url && b.why === item.why)) continue;
      this.broken.push({ at: Date.now(), url, why: item.why });
    }
  }

  /** Notes that `window.pageworksReady` rejected with `text`. */
  notReady(text: string): void {
    this.extra.push({ at: Date.now(), entry: notReadyEntry(text) });
  }

  /** Notes that the document printed with `count` requestAnimationFrame callbacks whose frame did not come. */
  framesMissed(count: number): void {
    this.extra.push({ at: Date.now(), entry: framesMissedEntry(count) });
  }

  /** Notes cross-references whose target ids the printed document lacks. */
  unresolved(entries: readonly ReportEntry[]): void {
    for (const entry of entries) this.extra.push({ at: Date.now(), entry });
  }

  /** Notes what the PDF profiles the document declared met with: conformance issues, attachments it could not get. */
  profiles(entries: readonly ReportEntry[]): void {
    for (const entry of entries) this.extra.push({ at: Date.now(), entry });
  }

  /** Notes the requests (by id, as the slot tracks them) still pending as the document prints. */
  printing(pending: Iterable<string>): void {
    const urls = this.addresses(pending);
    if (urls.length > 0) this.extra.push({ at: Date.now(), entry: pendingEntry(urls) });
  }

  /** The addresses of the requests (by id, as the slot tracks them) that the page reported. */
  addresses(requests: Iterable<string>): string[] {
    return [...requests].map((id) => this.urls.get(id)?.url).filter((u): u is string => u !== undefined);
  }

  /** Stops listening to the page (its slot may serve another render next); what Node adds still counts. */
  stop(): void {
    for (const [name, fn] of this.listeners) this.session.off(name as never, fn as never);
  }

  /** Stops listening and returns the entries in the order met, at most MAX_ENTRIES then one `truncated`. */
  finish(refusals: readonly EgressRefusal[]): ReportEntry[] {
    this.stop();
    const byTarget = new Map<string, RefusalReason>();
    for (const r of refusals) if (!byTarget.has(r.target)) byTarget.set(r.target, r.reason);
    const found: Array<{ at: number; entry: ReportEntry; url?: string; type?: string }> = this.failures.map((f) => ({
      at: f.at,
      entry: this.resourceEntry(f, byTarget),
      url: f.url,
      type: f.type,
    }));
    this.placeFonts(found);
    // An image the network failed is empty too: its request's entry already says why. A request's URL has
    // no fragment; the image's address may.
    const unfragmented = (url: string) => url.replace(/#.*$/s, '');
    const requested = new Set(this.failures.map((f) => unfragmented(f.url)));
    for (const b of this.broken)
      if (b.why === 'relative' || !requested.has(unfragmented(b.url)))
        found.push({ at: b.at, entry: failedEntry(b.url, { error: b.why }) });
    for (const [at, text] of this.errors) found.push({ at, entry: scriptEntry(text) });
    found.push(...this.extra);
    const entries = found
      .filter((f) => f.entry !== NOTHING)
      .sort((a, b) => a.at - b.at)
      .map((f) => f.entry);
    const dropped = Math.max(0, entries.length - MAX_ENTRIES) + this.pageDropped + this.droppedFailures;
    const kept =
      dropped === 0 ? entries : [...keepEntries(entries, MAX_ENTRIES), truncatedEntry(dropped, `the first ${MAX_ENTRIES}`)];
    return fitEntries(kept, MAX_ENTRIES_BYTES, 'at most 30 KiB of entries');
  }

  /** A failed request's entry: refused by the egress policy, failed at the proxy, or as Chromium saw it. */
  private resourceEntry(f: Failure, byTarget: Map<string, RefusalReason>): ReportEntry {
    if (!LOADABLE.test(f.url)) return blockedEntry(f.url, 'scheme');
    // Stopped by the document's own policy before it reached the proxy: a refusal the proxy gave another
    // request to the same host is not its cause.
    if (f.blockedReason === 'csp') return failedEntry(f.url, { error: 'csp' });
    // Chromium stops a subresource whose address has a `user:password@` before it leaves, as "origin".
    if (f.blockedReason === 'origin' && hasUserinfo(f.url)) return failedEntry(f.url, { error: 'credentials' });
    // A plain http request the proxy refused has the proxy's 403/502 as its answer; a tunnel fails below HTTP.
    const keys = proxyKeys(f.url);
    const refusal = (f.status === undefined || /^http:/i.test(f.url) ? keys : []).map((k) => byTarget.get(k)).find(Boolean);
    if (refusal && BLOCK_REASONS.has(refusal)) return blockedEntry(f.url, refusal as BlockReason);
    if (refusal) return failedEntry(f.url, { error: refusal as NetworkFailure });
    const status = f.status ?? this.statuses.get(f.requestId);
    if (status !== undefined) return failedEntry(f.url, { status });
    const error = networkFailure(f);
    return error === null ? NOTHING : failedEntry(f.url, { error });
  }

  /**
   * Each failed font family becomes one `font_failed` entry, placed where its file failed: it replaces
   * that file's `resource_failed` (the font entry says the same and names the family) and follows a
   * `resource_blocked` (whose reason stays). A family whose file is not known is matched to a failed font
   * request no other family claimed.
   */
  private placeFonts(found: Array<{ at: number; entry: ReportEntry; url?: string; type?: string }>): void {
    const claimed = new Set<number>();
    for (const [family, urls] of this.fonts) {
      let index = found.findIndex((f, i) => !claimed.has(i) && f.url !== undefined && urls.includes(f.url));
      if (index < 0 && urls.length === 0) index = found.findIndex((f, i) => !claimed.has(i) && f.type === 'Font');
      if (index < 0) {
        found.push({ at: Date.now(), entry: fontEntry(family, urls[0] ?? null) });
        continue;
      }
      claimed.add(index);
      const file = found[index];
      const font = fontEntry(family, file.url ?? null, file.entry === NOTHING ? undefined : causeOf(file.entry));
      if (file.entry.kind === 'resource_blocked') found.push({ at: file.at, entry: font });
      else found[index] = { ...file, entry: font };
    }
  }
}

/** `value` when it is a string of at most `max` characters. */
function boundedText(value: unknown, max: number): string | undefined {
  return typeof value === 'string' && value.length <= max ? value : undefined;
}

/** Most script errors a page part may say it dropped: more than any document throws in a render. */
const MAX_DROPPED = 1e9;

/** The page part's script errors when they have its shape: [time, text] pairs and a count of the rest. */
function checkedErrors(page: unknown): { errors: Array<[number, string]>; dropped: number } | undefined {
  if (page === null || typeof page !== 'object') return undefined;
  const { errors, dropped } = page as { errors?: unknown; dropped?: unknown };
  const found: Array<[number, string]> = [];
  if (Array.isArray(errors)) {
    for (const error of errors.slice(0, PAGE_LIMITS.errors)) {
      if (!Array.isArray(error) || error.length !== 2 || !Number.isFinite(error[0])) continue;
      const text = boundedText(error[1], PAGE_LIMITS.text);
      if (text !== undefined) found.push([error[0], text]);
    }
  }
  const count = Number.isSafeInteger(dropped) && (dropped as number) >= 0 ? Math.min(dropped as number, MAX_DROPPED) : 0;
  return { errors: found, dropped: count };
}

/** A failure that is not one (a cancelled request): filtered out of the report. */
const NOTHING: ReportEntry = { kind: 'truncated', dropped: 0, message: '' };
