import type { FastifyRequest } from 'fastify';

/** What a log line shows in place of a secret. */
const REDACTED = '[redacted]';

// A query parameter whose name holds one of these (after decoding and case-folding) carries a secret:
// reset tokens, API keys, passwords, webhook secrets, signatures, session ids.
const SECRET_NAME = /token|key|pass|pwd|secret|auth|session|csrf|signature|sig$|credential/;

// Values that are secrets whatever they are called: API keys and webhook signing secrets.
const SECRET_VALUE = /(?:pwr|pwm)_live_[0-9a-z]|whsec_[0-9a-z+/=]/i;

// An address's `user:password@` (up to the authority's last `@`, as URL parsers read it, backslashes and
// missing slashes included): a credential whatever it holds.
const USERINFO = /^([a-z][a-z0-9+.-]*:[\\/]*)[^/?#\\]*@/i;

/** Percent-decodes (and `+` as space) until nothing changes, a few rounds at most; malformed escapes stay as they are. */
function decoded(text: string): string {
  let current = text;
  for (let round = 0; round < 3 && /[%+]/.test(current); round++) {
    let next: string;
    try {
      next = decodeURIComponent(current.replace(/\+/g, ' '));
    } catch {
      next = current
        .replace(/\+/g, ' ')
        .replace(/%([0-9a-f]{2})/gi, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    }
    if (next === current) break;
    current = next;
  }
  return current;
}

function isSecretParameter(rawName: string, rawValue: string): boolean {
  const name = decoded(rawName).toLowerCase();
  return SECRET_NAME.test(name) || SECRET_VALUE.test(decoded(rawValue));
}

/** Addresses inside addresses whose secrets are looked for: the request's, a parameter's, and one in that. */
const MAX_NESTING = 2;

/**
 * A parameter whose value is an address of its own (`/v1/fetch?url=…`, `?next=…`) carries that address's
 * secrets: its `user:password@` and its token-shaped parameters go as the outer URL's would. The value
 * keeps its spelling unless something in it is redacted; then it is encoded again around the marks.
 */
function nestedRedacted(rawValue: string, mark: string, depth: number): string {
  // An address inside an address inside the request is as deep as a real one goes (`?url=…?next=…`); a
  // crafted URL of thousands of levels would otherwise cost a pass per level, or the stack.
  if (depth >= MAX_NESTING) return rawValue;
  const value = decoded(rawValue);
  if (!/^[a-z][a-z0-9+.-]*:/i.test(value)) return rawValue;
  const redacted = redactAt(value, mark, depth + 1);
  if (redacted === value) return rawValue;
  if (value === rawValue) return redacted;
  return redacted
    .split(mark)
    .map((piece) => encodeURIComponent(piece))
    .join(mark);
}

/** How a redacted URL marks what it left out. */
export interface RedactOptions {
  /** Shown in place of each secret (default `[redacted]`, as logs show it). */
  mark?: string;
}

/**
 * The URL as a log may show it: the value of every query parameter whose name is token-, key- or
 * password-shaped (compared after percent-decoding and case-folding, so `%74oken` and `TOKEN` count),
 * or whose value looks like an API key or webhook secret, becomes `[redacted]` (or `opts.mark`), each
 * occurrence of a repeated parameter included. A path segment that looks like a key is redacted too, and
 * so is the user name and password of `scheme://user:password@host`.
 */
export function redactUrl(address: string, opts: RedactOptions = {}): string {
  return redactAt(address, opts.mark ?? REDACTED, 0);
}

/** redactUrl of an address found `depth` parameters deep in the one logged. */
function redactAt(address: string, mark: string, depth: number): string {
  const url = address.replace(USERINFO, (_m, scheme: string) => `${scheme}${mark}@`);
  const at = url.indexOf('?');
  const rawPath = at === -1 ? url : url.slice(0, at);
  const path = SECRET_VALUE.test(decoded(rawPath))
    ? rawPath
        .split('/')
        .map((segment) => (SECRET_VALUE.test(decoded(segment)) ? mark : segment))
        .join('/')
    : rawPath;
  if (at === -1) return path;
  // Both separators browsers and some frameworks accept, so `;token=` is not a way around it.
  const query = url
    .slice(at + 1)
    .split(/([&;])/)
    .map((part) => {
      if (part === '&' || part === ';' || part === '') return part;
      const eq = part.indexOf('=');
      const name = eq === -1 ? part : part.slice(0, eq);
      // A name that is itself a key (`?pwr_live_…`) is the secret.
      if (SECRET_VALUE.test(decoded(name))) return mark;
      if (eq === -1) return part;
      const value = part.slice(eq + 1);
      return `${name}=${isSecretParameter(name, value) ? mark : nestedRedacted(value, mark, depth)}`;
    })
    .join('');
  return `${path}?${query}`;
}

/** What Fastify logs of a request ("incoming request"): its URL always passes through redactUrl. */
function serializeRequest(req: FastifyRequest) {
  return {
    method: req.method,
    url: redactUrl(req.url),
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/** The serializers every logger of the process uses (see logger.ts). */
export const REQUEST_SERIALIZERS = { req: serializeRequest };

/** An address as an error message shows it to a client: redacted, with `…` for what it hides, `max` characters at most. */
export function shownUrl(address: string, max = 300): string {
  return redactUrl(address, { mark: '…' }).slice(0, max);
}
