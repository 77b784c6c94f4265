/**
 * A render report held against the oracle's load of the same document (report-oracle.ts).
 *
 * Judged: the network entries, `resource_blocked`, `resource_failed` and `font_failed` (the others say
 * nothing the oracle sees, and are counted apart). The matching, as docs/rendering.md says a report shows
 * a URL:
 * - an oracle URL is shown as the report would show it: a data: URL as `data:` + its media type (before
 *   the first `;` or `,`, `text/plain` when empty), any other without `user:password@`, each run of control
 *   characters as one U+FFFD. A report URL matches it when they are equal, where each `…` of the report's
 *   URL stands for any characters but `&` and `#` (a credential-like parameter's value), and a report URL
 *   of 500 characters (the cut) need only be the start of the shown URL;
 * - precision: a network entry is confirmed when its URL matches a request the oracle saw fail; a
 *   `font_failed` whose URL is null, when its family is among the oracle's fonts in error. Every entry
 *   counts, duplicates included (the same URL asked for twice fails twice);
 * - recall: over the distinct URLs (as shown) the oracle saw fail: each is found when a network entry's
 *   URL matches it, whatever its kind or reason. A report that ends in `truncated` (at most 100 entries)
 *   covers as many of the URLs it does not list as it says it dropped (the latest met); the rest are misses;
 * - numbers that differ from load to load (a cache-buster, `Math.random()` in a tracking pixel's URL): an
 *   entry left unconfirmed and a failed URL left unnamed are paired, one to one, when they are equal with
 *   each run of digits taken as one placeholder; the pair counts as confirmed and found.
 */
import type { ReportEntry } from '../../src/report/report.js';
import type { OracleLoad, OracleRequest } from './report-oracle.js';

/** The report's network kinds: the entries the oracle judges. */
const NETWORK_KINDS = new Set(['resource_blocked', 'resource_failed', 'font_failed']);
/** The cut of a URL in a report. */
const MAX_URL = 500;
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]+/g;

/** One page's agreement. */
export interface PageAgreement {
  /** Network entries of the report, and those the oracle confirms. */
  entries: number;
  confirmed: number;
  /** Distinct failed URLs the oracle saw, those the report names, and those its `truncated` entry covers. */
  failed: number;
  found: number;
  coveredByTruncation: number;
  /** Report entries the oracle does not confirm. */
  unconfirmed: ReportEntry[];
  /** Failed requests (one per distinct URL) the report neither names nor covers. */
  missed: OracleRequest[];
  /** Failed requests made while the document printed that the report does not name (not counted). */
  printTime: OracleRequest[];
  /** Entries of other kinds, by kind (not judged). */
  other: Record<string, number>;
}

/** A URL as a report shows it, by the rules of docs/rendering.md (but the credential-like parameters). */
export function shownUrl(url: string): string {
  if (/^data:/i.test(url)) {
    const comma = url.indexOf(',');
    const type = url
      .slice(5, comma < 0 ? undefined : comma)
      .split(';')[0]
      .trim();
    return `data:${type || 'text/plain'}`;
  }
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, '$1').replace(CONTROLS, '\ufffd');
}

/** Whether a report's URL shows the oracle's `url` (see the file comment). */
export function showsUrl(reported: string, url: string): boolean {
  const shown = shownUrl(url);
  if (reported === shown) return true;
  if (!reported.includes('…') && reported.length < MAX_URL) return false;
  const pattern = reported
    .split('…')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^&#]*');
  return new RegExp(`^${pattern}${reported.length >= MAX_URL ? '' : '$'}`).test(shown);
}

/** A URL with each run of digits as one `#`: what two loads of a document that counts or draws lots share. */
function masked(url: string): string {
  return url.replace(/\d+/g, '#');
}

/** Holds one page's report against the oracle's load of it. */
export function compareReport(report: readonly ReportEntry[], oracle: OracleLoad): PageAgreement {
  const failedRequests = oracle.requests.filter((r) => r.failed);
  const network = report.filter((e) => NETWORK_KINDS.has(e.kind)) as Array<ReportEntry & { url: string | null }>;
  const other: Record<string, number> = {};
  for (const e of report) if (!NETWORK_KINDS.has(e.kind)) other[e.kind] = (other[e.kind] ?? 0) + 1;
  let unconfirmed = network.filter((entry) => {
    if (entry.url !== null) return !failedRequests.some((r) => showsUrl(entry.url as string, r.url));
    return !(entry.kind === 'font_failed' && oracle.fontErrors.includes(entry.family));
  });
  const distinct = new Map<string, OracleRequest>();
  for (const r of failedRequests) if (!distinct.has(shownUrl(r.url))) distinct.set(shownUrl(r.url), r);
  // A request Chromium made while printing is confirmed when the report names it, not required.
  const printTime = [...distinct.entries()].filter(([, r]) => r.printing);
  for (const [key] of printTime) distinct.delete(key);
  let notNamed = [...distinct.values()].filter((r) => !network.some((e) => e.url !== null && showsUrl(e.url, r.url)));
  // What is left on both sides is paired one to one where only numbers differ (a cache-buster, Math.random()).
  const pairedEntries = new Set<ReportEntry>();
  const pairedRequests = new Set<OracleRequest>();
  for (const entry of unconfirmed) {
    if (entry.url === null) continue;
    const request = notNamed.find((r) => !pairedRequests.has(r) && masked(shownUrl(r.url)) === masked(entry.url as string));
    if (!request) continue;
    pairedEntries.add(entry);
    pairedRequests.add(request);
  }
  unconfirmed = unconfirmed.filter((e) => !pairedEntries.has(e));
  notNamed = notNamed.filter((r) => !pairedRequests.has(r));
  const printTimeMissed = printTime
    .map(([, r]) => r)
    .filter((r) => !network.some((e) => e.url !== null && showsUrl(e.url, r.url)));
  const truncated = report.find((e) => e.kind === 'truncated');
  const coveredByTruncation = Math.min(notNamed.length, truncated?.kind === 'truncated' ? truncated.dropped : 0);
  return {
    entries: network.length,
    confirmed: network.length - unconfirmed.length,
    failed: distinct.size,
    found: distinct.size - notNamed.length,
    coveredByTruncation,
    unconfirmed,
    // A report keeps the first entries met: what it dropped are the latest.
    missed: notNamed.sort((a, b) => a.at - b.at).slice(0, notNamed.length - coveredByTruncation),
    printTime: printTimeMissed,
    other,
  };
}

/** The mismatches of one page, a line each: `-` an entry the oracle does not confirm, `+` a failure the report misses. */
export function mismatchLines(name: string, agreement: PageAgreement): string[] {
  return [
    ...agreement.unconfirmed.map((e) => {
      const what =
        e.kind === 'font_failed' ? `font_failed "${e.family}" ${e.url ?? '(no url)'}` : `${e.kind} ${'url' in e ? e.url : ''}`;
      return `${name}: - ${what}`;
    }),
    ...agreement.missed.map(
      (r) => `${name}: + ${r.type} ${shownUrl(r.url).slice(0, MAX_URL)} (at ${r.at} ms${r.late ? ', after load' : ''})`,
    ),
  ];
}

/** The requests made while printing that the report does not name, a line each (not counted). */
export function printTimeLines(name: string, agreement: PageAgreement): string[] {
  return agreement.printTime.map(
    (r) => `${name}: ~ ${r.type} ${shownUrl(r.url).slice(0, MAX_URL)} (at ${r.at} ms, while printing)`,
  );
}
