/**
 * The render report in plain words: how an entry shows a URL (cut, no payload, no credentials) and the
 * `message` a customer reads, which says what happened and, where there is one, what to do.
 */

import { addressClass, parseIp } from '../../net/policy.js';
import { redactUrl } from '../../redact-url.js';
import type { BlockReason, NetworkFailure, ReportEntry } from '../../report/report.js';
import { reportText } from '../../report/report-text.js';

/** URLs in a report are cut to this many characters. */
const MAX_URL = 500;
/** File names quoted in a message are cut to this many characters. */
const MAX_NAME = 80;

/**
 * A URL as a report shows it: a `data:` URL by its media type only (never its payload), any other without
 * its user name and password, the values of credential-like query parameters (and fragment parameters)
 * shown as `…`, control characters replaced, cut to 500 characters.
 */
export function reportUrl(url: string): string {
  // Cut before redacting too: a page can ask for a URL of megabytes, and redaction decodes every parameter.
  return reportText(redactedUrl(url.slice(0, 4 * MAX_URL)), MAX_URL);
}

function redactedUrl(url: string): string {
  if (/^data:/i.test(url)) {
    const type = url
      .slice(5, url.indexOf(',') >= 0 ? url.indexOf(',') : undefined)
      .split(';')[0]
      .trim();
    return `data:${(type || 'text/plain').slice(0, 100)}`;
  }
  let shown = url;
  try {
    const parsed = new URL(url);
    if (parsed.username || parsed.password) {
      parsed.username = '';
      parsed.password = '';
      shown = parsed.href;
    }
  } catch {
    // Not a URL Node can parse: shown as it came, cut.
  }
  // A fragment is never sent, but an address may carry a token there (`#access_token=…`) all the same.
  const hash = shown.indexOf('#');
  const base = redactUrl(hash < 0 ? shown : shown.slice(0, hash), { mark: '…' });
  return hash < 0 ? base : `${base}#${redactUrl(`?${shown.slice(hash + 1)}`, { mark: '…' }).slice(1)}`;
}

/** What a message calls a resource: its file name, else its host, else the shown URL. */
function nameOf(url: string): string {
  if (/^data:/i.test(url)) return `an inline ${reportUrl(url).slice(5)} (data: URL)`;
  let name = url;
  try {
    const parsed = new URL(url);
    const file = parsed.pathname.split('/').filter(Boolean).pop();
    name = file ? decodeURIComponent(file) : parsed.host || reportUrl(url);
  } catch {
    name = reportUrl(url);
  }
  name = reportText(name, 2 * MAX_NAME).replace(/\s+/g, ' ');
  return name.length > MAX_NAME ? `${name.slice(0, MAX_NAME)}…` : name;
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return 'its host';
  }
}

/**
 * The loopback address a URL names (a localhost name is 127.0.0.1 by definition), or undefined. A document
 * that loads from the developer's own machine is the commonest refusal of all: its words say so, and
 * name the EGRESS_ALLOW value that lets it through.
 */
function loopbackOf(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/\.$/, '');
  } catch {
    return undefined;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return '127.0.0.1';
  const ip = parseIp(host);
  return ip && addressClass(ip) === 'loopback' ? ip.toString() : undefined;
}

/** Why a private address was refused: loopback named as such, with the EGRESS_ALLOW value for it. */
function privateWords(url: string): string {
  const loopback = loopbackOf(url);
  if (loopback === undefined) return 'its address is on a private network (EGRESS_ALLOW lets an operator allow it)';
  const cidr = loopback.includes(':') ? `${loopback}/128` : `${loopback}/32`;
  return `its address ${loopback} is loopback, the machine that renders the document; EGRESS_ALLOW=${cidr} lets an operator allow it`;
}

const BLOCKED: Record<BlockReason, (url: string) => string> = {
  private_address: privateWords,
  unresolvable: (url) => `the host ${hostOf(url)} could not be found (check the address, or the render server's DNS)`,
  scheme: (url) =>
    `${reportText(url.split(':')[0], 20)}: addresses cannot be loaded in a render (http, https, data: and blob: can)`,
  too_large: () => 'the document went over the requests or bytes one render may fetch',
};

const NETWORK: Record<NetworkFailure, string> = {
  refused: 'its server refused the connection',
  reset: 'the connection broke before it finished',
  timeout: 'its server did not answer in time',
  tls: 'its HTTPS certificate or connection is not valid',
  cors: 'its server does not let other sites use it (a font or fetch from another origin needs Access-Control-Allow-Origin)',
  csp: "the document's own Content-Security-Policy does not allow it",
  credentials:
    'its address holds a user name or password, and browsers load no image, style, script or font from such an address (serve it without them, or inline it as a data: URL)',
  orb: 'its server answered with a web page, JSON or XML where an image, style sheet, script or media file was expected, and browsers do not load that (the address may lead to an error or sign-in page)',
  corp: 'its server lets only its own site use it (Cross-Origin-Resource-Policy)',
  framing: 'its server does not let other pages show it in a frame (X-Frame-Options or Content-Security-Policy frame-ancestors)',
  decoding: 'its answer says it is compressed (Content-Encoding) and its bytes do not decompress',
  redirects: 'it redirects more than 20 times (a redirect loop)',
  relative:
    'its address is relative, and a document sent as HTML has no address of its own to resolve it against (write the full https:// address, add <base href="https://…/"> to the head, or inline it as a data: URL)',
  undecodable: 'its answer is not an image the browser can read (a broken-image icon printed in its place)',
};

/** An entry for a request the egress policy refused. */
export function blockedEntry(url: string, reason: BlockReason): ReportEntry {
  return {
    kind: 'resource_blocked',
    url: reportUrl(url),
    reason,
    message: `${nameOf(url)} was not loaded: ${BLOCKED[reason](url)}`,
  };
}

/** An entry for a request that answered an HTTP error, or failed below HTTP. */
export function failedEntry(url: string, failure: { status: number } | { error: NetworkFailure }): ReportEntry {
  const why = 'status' in failure ? `its server answered HTTP ${failure.status}` : NETWORK[failure.error];
  return { kind: 'resource_failed', url: reportUrl(url), ...failure, message: `${nameOf(url)} was not loaded: ${why}` };
}

/** An entry for a web font that ended in state `error`; `cause` is what happened to its file, when known. */
export function fontEntry(name: string, url: string | null, cause?: string): ReportEntry {
  const family = reportText(name, 200);
  const file = url === null ? '' : ` from ${nameOf(url)}`;
  const because = cause ? ` (${cause})` : '';
  return {
    kind: 'font_failed',
    family,
    url: url === null ? null : reportUrl(url),
    message: `The font "${family.slice(0, MAX_NAME)}" could not be loaded${file}${because}; its text printed in a fallback font`,
  };
}

/** An entry for an uncaught exception or unhandled rejection. */
export function scriptEntry(text: string): ReportEntry {
  const cut = reportText(text, 300);
  return { kind: 'script_error', text: cut, message: `A script in the document failed: ${cut}` };
}

/** An entry for a rejected `window.pageworksReady`. */
export function notReadyEntry(text: string): ReportEntry {
  const cut = reportText(text, 300);
  return {
    kind: 'not_ready',
    text: cut,
    message: `window.pageworksReady was rejected (${cut}); the document printed as it was then`,
  };
}

/** The first three of `urls` by name, and how many more (`logo.png, app.js and 2 more`). */
export function namedRequests(urls: readonly string[]): string {
  const names = urls.slice(0, 3).map(nameOf).join(', ');
  return urls.length > 3 ? `${names} and ${urls.length - 3} more` : names;
}

/** An entry for the requests still pending when the wait for them ran out (`urls` at most 10). */
export function pendingEntry(urls: string[]): ReportEntry {
  return {
    kind: 'printed_while_pending',
    count: urls.length,
    urls: urls.slice(0, 10).map(reportUrl),
    message:
      `${urls.length === 1 ? '1 request was' : `${urls.length} requests were`} still loading when the wait for them ` +
      `(RENDER_IDLE_MAX_MS) ran out, and the document printed without ${urls.length === 1 ? 'it' : 'them'}: ${namedRequests(urls)}` +
      ' (window.pageworksReady lets a document say when it is ready)',
  };
}

/** An entry for a document that printed with `count` requestAnimationFrame callbacks whose frame did not come. */
export function framesMissedEntry(count: number): ReportEntry {
  return {
    kind: 'frames_missed',
    count,
    message:
      `The document waited for an animation frame that did not come within a second (another document's script held ` +
      `the browser's frames), and printed without what ${count === 1 ? 'its requestAnimationFrame callback' : `its ${count} requestAnimationFrame callbacks`} ` +
      'would have drawn (window.pageworksReady lets a document say when its drawing is done)',
  };
}

/**
 * An entry for a declared profile the document cannot meet (docs/standards.md): which profile, the
 * clause, the element, and the message that says why and what to do. Each field is cut to 200
 * characters, the message to 500.
 */
export function conformanceEntry(issue: { profile: string; clause: string; element: string; message: string }): ReportEntry {
  return {
    kind: 'conformance',
    profile: issue.profile.slice(0, 200),
    clause: issue.clause.slice(0, 200),
    element: issue.element.slice(0, 200),
    message: issue.message.slice(0, 500),
  };
}

/**
 * The last entry of a report that had more to say than it keeps: `limit` says which limit it met, in
 * words after "a report keeps…" (`the first 100`).
 */
export function truncatedEntry(dropped: number, limit: string): ReportEntry {
  return {
    kind: 'truncated',
    dropped,
    message: `${dropped} more ${dropped === 1 ? 'problem was' : 'problems were'} not listed (a report keeps ${limit})`,
  };
}

/** How a cause reads inside a font entry's message. */
export function causeOf(entry: ReportEntry): string | undefined {
  if (entry.kind !== 'resource_failed' && entry.kind !== 'resource_blocked') return undefined;
  return entry.message.slice(entry.message.indexOf(': ') + 2);
}
