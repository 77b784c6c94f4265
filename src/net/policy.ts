/**
 * The one egress policy: which URLs, hosts and addresses outbound requests may reach.
 *
 * Only public unicast addresses are reachable; loopback, private, link-local, CGNAT, unique-local,
 * multicast, broadcast, unspecified, documentation, benchmarking and other reserved ranges are refused,
 * also when hidden in IPv6 forms (IPv4-mapped, NAT64, 6to4) or odd IPv4 spellings (WHATWG URL parsing
 * normalises `2130706433`, `0x7f.1`, `127.1` to dotted decimal before we look). `EGRESS_ALLOW` entries
 * (CIDRs or host names) are the only exception.
 *
 * Decision: when a host name resolves to several addresses and any one of them is forbidden, the host is
 * refused as a whole. Picking a "good" address among bad ones would let an attacker-controlled zone mix a
 * public decoy with an internal target and hope a retry or another client picks the internal one.
 */
import ipaddr from 'ipaddr.js';
import { createSystemLookup } from './system-lookup.js';

/** Which rule refused a destination (the render report names it). */
export type DenialReason = 'private_address' | 'unresolvable' | 'scheme';

/** A refused outbound destination; the message is safe to show to a client. */
export class EgressDenied extends Error {
  constructor(
    message: string,
    readonly reason: DenialReason = 'private_address',
  ) {
    super(message);
    this.name = 'EgressDenied';
  }
}

/**
 * Said after every refusal of an address class: a newcomer whose receiver or test page is on their own
 * machine learns the one switch, wherever the refusal surfaces (metadata 400, webhook URL, render proxy).
 */
export const EGRESS_ALLOW_HINT = 'EGRESS_ALLOW lets an operator allow it';

/** A refusal because of where an address lies (loopback, private, …), which EGRESS_ALLOW can lift. */
function addressDenied(what: string): EgressDenied {
  return new EgressDenied(`${what} (${EGRESS_ALLOW_HINT})`);
}

/** Resolves a host name to all its addresses (dns.lookup shape, `all: true`); may stop when `signal` aborts. */
export type LookupFn = (hostname: string, signal?: AbortSignal) => Promise<Array<{ address: string; family: 4 | 6 }>>;

/** How long one lookup of the policy may take before the host counts as unresolvable (as a browser gives up). */
export const LOOKUP_DEADLINE_MS = 1500;

/** The checks every outbound caller runs before it opens a connection. */
export interface EgressPolicy {
  /** Checks scheme/host of a URL string; resolves DNS once; returns the pinned address to connect to. Throws EgressDenied. */
  checkUrl(url: string | URL): Promise<{ url: URL; address: string; family: 4 | 6 }>;
  /** Resolves a host name (or IP literal in any notation) once and returns an allowed address. Throws EgressDenied. */
  resolve(hostname: string): Promise<{ address: string; family: 4 | 6 }>;
  /** Whether a literal IP address may be reached (EGRESS_ALLOW applied). */
  allowsAddress(ip: string): boolean;
}

type Addr = ipaddr.IPv4 | ipaddr.IPv6;

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

const DOTTED_DECIMAL = /^(?:0|[1-9]\d{0,2})(?:\.(?:0|[1-9]\d{0,2})){3}$/;

/** Parses an IP literal in any notation WHATWG URL accepts (IPv6 with or without brackets). */
export function parseIp(ip: string): Addr | null {
  // Dotted decimal as a URL's hostname has it (every address a fetch checks): read at once, without
  // host parsing or ipaddr.js's parsers (together 2 µs of a fetch).
  if (DOTTED_DECIMAL.test(ip)) {
    const octets = ip.split('.').map(Number);
    return octets.every((o) => o <= 255) ? new ipaddr.IPv4(octets) : null;
  }
  let text = ip.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  if (text.includes(':')) return ipaddr.IPv6.isValid(text) ? ipaddr.IPv6.parse(text) : null;
  const host = normaliseHost(text);
  if (host === null || !ipaddr.IPv4.isValidFourPartDecimal(host)) return null;
  return ipaddr.IPv4.parse(host);
}

/** WHATWG host parsing: lower-cases, IDNA-encodes, turns every IPv4 spelling into dotted decimal. */
function normaliseHost(host: string): string | null {
  if (host === '' || /[\s/?#@\\]/.test(host)) return null;
  try {
    return new URL(`http://${host}/`).hostname;
  } catch {
    return null;
  }
}

/** Readable names of ipaddr.js ranges; anything not listed (as112, amt, orchid, …) reads as 'reserved'. */
const RANGE_NAMES: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT',
  private: 'private',
  uniqueLocal: 'unique-local',
  teredo: 'Teredo',
  benchmarking: 'benchmarking',
  deprecatedSiteLocal: 'site-local',
};

function rangeName(range: string): string {
  return RANGE_NAMES[range] ?? 'reserved';
}

/** The class of an IPv4 address: 'public' or the name of the forbidden range it falls in. */
function classifyV4(addr: ipaddr.IPv4): string {
  const range = addr.range();
  return range === 'unicast' ? 'public' : rangeName(range);
}

/** Embedded IPv4 address of IPv4-mapped, NAT64 (64:ff9b::/96) and 6to4 (2002::/16) IPv6 forms. */
function embeddedV4(addr: ipaddr.IPv6): ipaddr.IPv4 | null {
  if (addr.isIPv4MappedAddress()) return addr.toIPv4Address();
  const p = addr.parts;
  if (addr.match(NAT64_WELL_KNOWN)) return new ipaddr.IPv4([p[6] >> 8, p[6] & 255, p[7] >> 8, p[7] & 255]);
  if (p[0] === 0x2002) return new ipaddr.IPv4([p[1] >> 8, p[1] & 255, p[2] >> 8, p[2] & 255]);
  return null;
}

/** Names the forbidden class of an address, or returns 'public' when it may be reached. */
export function addressClass(addr: Addr): string {
  if (addr.kind() === 'ipv4') return classifyV4(addr as ipaddr.IPv4);
  const v6 = addr as ipaddr.IPv6;
  const inner = embeddedV4(v6);
  // The forms that carry an IPv4 address reach whatever that address is, so they share its class.
  if (inner) return classifyV4(inner);
  const range = v6.range();
  // Teredo hides an obfuscated client address; it is deprecated and never a legitimate page host.
  if (range !== 'unicast') return rangeName(range);
  if (!v6.match(GLOBAL_UNICAST_V6)) return 'reserved';
  return 'public';
}

interface AllowList {
  cidrs: Array<[Addr, number]>;
  hosts: Set<string>;
}

function parseAllow(entries: readonly string[]): AllowList {
  const cidrs: Array<[Addr, number]> = [];
  const hosts = new Set<string>();
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === '') continue;
    if (entry.includes('/')) {
      cidrs.push(ipaddr.parseCIDR(entry));
      continue;
    }
    const ip = parseIp(entry);
    if (ip && (entry.includes(':') || /^[\d.]+$/.test(entry))) {
      cidrs.push([ip, ip.kind() === 'ipv4' ? 32 : 128]);
      continue;
    }
    const host = normaliseHost(entry);
    if (host) hosts.add(stripDot(host));
  }
  return { cidrs, hosts };
}

function stripDot(host: string): string {
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

function inAllowedCidr(allow: AllowList, addr: Addr): boolean {
  const candidates: Addr[] = [addr];
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    candidates.push((addr as ipaddr.IPv6).toIPv4Address());
  }
  return allow.cidrs.some(([net, bits]) => candidates.some((c) => c.kind() === net.kind() && c.match(net, bits)));
}

/** The plain text form used to connect to an address (IPv4-mapped collapsed to IPv4). */
function connectForm(addr: Addr): { address: string; family: 4 | 6 } {
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    return { address: (addr as ipaddr.IPv6).toIPv4Address().toString(), family: 4 };
  }
  return { address: addr.toString(), family: addr.kind() === 'ipv4' ? 4 : 6 };
}

/** `lookup` of `host`, abandoned (and told so through its signal) after `ms`: then EAI_AGAIN, as getaddrinfo's "try again". */
async function lookupWithin(lookup: LookupFn, host: string, ms: number): Promise<Array<{ address: string; family: 4 | 6 }>> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(Object.assign(new Error(`host ${host} did not resolve within ${ms} ms`), { code: 'EAI_AGAIN' }));
    }, ms);
  });
  try {
    return await Promise.race([lookup(host, controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Builds the egress policy from EGRESS_ALLOW entries and an optional resolver (tests pass their own). */
export function createEgressPolicy(opts: {
  allow: readonly string[];
  lookup?: LookupFn;
  lookupDeadlineMs?: number;
}): EgressPolicy {
  const allow = parseAllow(opts.allow);
  const lookup = opts.lookup ?? createSystemLookup();
  const deadlineMs = opts.lookupDeadlineMs ?? LOOKUP_DEADLINE_MS;

  const denyReason = (addr: Addr): string | null => {
    if (inAllowedCidr(allow, addr)) return null;
    const cls = addressClass(addr);
    return cls === 'public' ? null : cls;
  };

  const checkAddress = (addr: Addr): { address: string; family: 4 | 6 } => {
    const reason = denyReason(addr);
    if (reason) throw addressDenied(`address ${addr.toString()} is ${reason}`);
    return connectForm(addr);
  };

  const resolve = async (hostname: string): Promise<{ address: string; family: 4 | 6 }> => {
    const literal = parseIp(hostname);
    if (literal) return checkAddress(literal);
    const normalised = normaliseHost(hostname);
    if (normalised === null) throw new EgressDenied(`host "${hostname}" is not a valid host name`, 'unresolvable');
    const host = stripDot(normalised);
    if (host === '') throw new EgressDenied('host is empty', 'unresolvable');
    const allowedByName = allow.hosts.has(host);
    // RFC 6761: localhost names never go to DNS; they are loopback by definition.
    if (host === 'localhost' || host.endsWith('.localhost')) {
      const loop = ipaddr.IPv4.parse('127.0.0.1');
      if (allowedByName) return connectForm(loop);
      if (denyReason(loop)) throw addressDenied(`host ${host} is loopback`);
      return connectForm(loop);
    }
    const results = await lookupWithin(lookup, host, deadlineMs);
    if (results.length === 0) throw Object.assign(new Error(`host ${host} has no address`), { code: 'ENOTFOUND' });
    const parsed = results.map((r) => ipaddr.parse(r.address));
    if (!allowedByName) {
      for (const addr of parsed) {
        const reason = denyReason(addr);
        if (reason) throw addressDenied(`host ${host} resolves to a ${reason} address`);
      }
    }
    return connectForm(parsed[0]);
  };

  return {
    resolve,
    async checkUrl(input) {
      let url: URL;
      try {
        url = typeof input === 'string' ? new URL(input) : new URL(input.href);
      } catch {
        throw new EgressDenied('url is malformed', 'unresolvable');
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new EgressDenied(`scheme "${url.protocol.slice(0, -1)}" is not allowed (only http and https)`, 'scheme');
      }
      const target = await resolve(url.hostname);
      return { url, ...target };
    },
    allowsAddress(ip) {
      const addr = parseIp(ip);
      return addr !== null && denyReason(addr) === null;
    },
  };
}
