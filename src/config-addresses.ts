/**
 * The variables that name other places, each with its own syntax: the egress allow list, the trusted
 * proxies, the timestamp authority, the mail sender and the result store.
 */
import ipaddr from 'ipaddr.js';
import { ConfigError, type Env, str, url } from './config-env.js';
import { addressClass, createEgressPolicy, parseIp } from './net/policy.js';

/**
 * SIGN_TSA_URL: an http(s) URL the egress policy lets through. An address it refuses (a private or loopback
 * literal, localhost) is said now, not as a 500 on every signature; it is classified as the policy would,
 * without a DNS query (a name is checked when a signature asks for its timestamp).
 */
export function signTsaUrl(env: Env, allow: readonly string[]): string | undefined {
  const raw = url(env, 'SIGN_TSA_URL', ['http:', 'https:']);
  if (raw === undefined) return undefined;
  const host = new URL(raw).hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  const allowedName = allow.some((entry) => entry.trim().toLowerCase().replace(/\.$/, '') === host);
  const loopbackName = host === 'localhost' || host.endsWith('.localhost');
  const address = parseIp(host) ? host : loopbackName && !allowedName ? '127.0.0.1' : undefined;
  const policy = createEgressPolicy({ allow, lookup: () => Promise.reject(new Error('no DNS query at start-up')) });
  if (address !== undefined && !policy.allowsAddress(address)) {
    const parsed = parseIp(address);
    throw new ConfigError(
      'SIGN_TSA_URL',
      `host ${host} is ${parsed ? addressClass(parsed) : 'not reachable'}, which the egress policy refuses (name a public timestamp authority, or add it to EGRESS_ALLOW)`,
    );
  }
  return raw;
}

const CIDR_OR_HOST = /^(?:[0-9a-f:.]+(?:\/\d{1,3})?|[a-z0-9]([a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?)$/i;

/** EGRESS_ALLOW: comma-separated CIDRs or host names of private or loopback destinations reached anyway. */
export function egressAllow(env: Env): string[] {
  const raw = str(env, 'EGRESS_ALLOW', '');
  const entries = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const entry of entries) {
    if (!CIDR_OR_HOST.test(entry)) {
      throw new ConfigError(
        'EGRESS_ALLOW',
        `"${entry}" is neither a CIDR nor a host name (allowed: comma-separated CIDRs or host names)`,
      );
    }
  }
  return entries;
}

/**
 * TRUST_PROXY: addresses or CIDRs only. Host names and `true` are refused on purpose: believing
 * every hop's `X-Forwarded-For` would let any client pick the address its throttles count against.
 */
export function trustProxy(env: Env): string[] {
  const entries = str(env, 'TRUST_PROXY', '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const entry of entries) {
    const valid = entry.includes('/') ? ipaddr.isValidCIDR(entry) : ipaddr.isValid(entry);
    if (!valid) {
      throw new ConfigError('TRUST_PROXY', `"${entry}" is not an IP address or CIDR (allowed: comma-separated addresses/CIDRs)`);
    }
  }
  return entries;
}

// A display name and an address in angle brackets, or a bare address; no line breaks (header injection).
const MAIL_FROM = /^(?:[^<>\r\n]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/;

/** MAIL_FROM: the sender of the dashboard's mail, trimmed. */
export function mailFrom(env: Env): string {
  const raw = str(env, 'MAIL_FROM', 'Pageworks <no-reply@localhost>');
  if (!MAIL_FROM.test(raw.trim())) {
    throw new ConfigError('MAIL_FROM', `"${raw}" is not a sender (allowed: "Name <address@host>" or "address@host")`);
  }
  return raw.trim();
}

/** RESULT_STORE: unset (undefined) for files under the data dir, or `s3://bucket/prefix`. */
export function resultStore(env: Env): string | undefined {
  const raw = str(env, 'RESULT_STORE', '');
  if (raw === '') return undefined;
  if (!/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?$/.test(raw)) {
    throw new ConfigError(
      'RESULT_STORE',
      `"${raw}" is not allowed (allowed: unset for files under the data dir, or s3://bucket/prefix)`,
    );
  }
  return raw;
}
