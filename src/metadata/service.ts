/**
 * The metadata service's one code path, shared by the HTTP route and `pageworks fetch`: URL checks,
 * the egress policy and pinned agent, fetching, extraction, and (for the server) cache + coalescing.
 */
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { MetadataError } from '../errors.js';
import { createPinnedAgent } from '../net/pinned-agent.js';
import { createEgressPolicy, type LookupFn } from '../net/policy.js';
import { type DependencyHealth, UNWATCHED, withPause } from '../outage-log.js';
import { createMetadataCache, DEFAULT_PREFIX } from './cache.js';
import { withCacheAndCoalescing } from './cached-fetch.js';
import { fetchPageMetadata, MAX_RESPONSE_HEADER_BYTES } from './fetch-page.js';
import { type MetadataMetrics, NO_METRICS } from './metrics.js';
import { createSharedCoalescer } from './shared-coalescing.js';
import type { Metadata } from './types.js';

/** Longest `url` accepted. */
export const MAX_URL_LENGTH = 2048;

/** Fetches metadata for a URL (checked by checkTargetUrl first); `close` releases connections. */
export interface MetadataService {
  fetch(url: unknown): Promise<Metadata>;
  /** Resolves once shared coalescing listens (at once without Redis). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** Options beyond the configuration: test seams and shared state. */
export interface MetadataServiceOptions {
  /** Resolver for the egress policy (tests must never ask real DNS). */
  lookup?: LookupFn;
  /** Shares the cache between instances when set. */
  redis?: Redis;
  /** Cache and coalesce (the server); the one-off CLI does neither. */
  cache?: boolean;
  /** Told of every Redis success and failure (an outage log). */
  redisHealth?: DependencyHealth;
  metrics?: MetadataMetrics;
  /** Prefix of the Redis keys and channel (tests use their own). */
  redisPrefix?: string;
}

/**
 * Validates the `url` parameter: present, a single string, at most 2048 characters, starting with
 * http:// or https://, and a well-formed URL. Returns the URL to fetch, without a user name or password;
 * throws MetadataError(400).
 * `fetch` runs it: routes pass the raw parameter.
 */
export function checkTargetUrl(raw: unknown): string {
  if (raw === undefined || raw === '')
    throw new MetadataError(400, 'url: required (the address of the page, http:// or https://)');
  if (typeof raw !== 'string') throw new MetadataError(400, 'url: give exactly one url parameter');
  if (raw.length > MAX_URL_LENGTH) throw new MetadataError(400, `url: longer than ${MAX_URL_LENGTH} characters (${raw.length})`);
  const value = raw.trim();
  if (!/^https?:\/\//i.test(value)) {
    // `http:/host` names an allowed scheme and lacks the `//`; `localhost:8080/page` is a host and port.
    const scheme = /^([a-z][a-z0-9+.-]*):(?!\d+(?:[/?#]|$))/i.exec(value)?.[1]?.toLowerCase();
    throw new MetadataError(
      400,
      scheme && scheme !== 'http' && scheme !== 'https'
        ? `url: scheme "${scheme}" is not allowed (only http:// and https://)`
        : 'url: must begin with http:// or https://',
    );
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new MetadataError(400, 'url: malformed');
  }
  if (url.hostname === '') throw new MetadataError(400, 'url: has no host');
  // The page is fetched as an anonymous visitor sees it, with no Authorization. A `user:password@` left in
  // the address would only come back in every address resolved against it (`favicon_url`, a relative
  // `og:image`) and sit in the shared cache's keys.
  url.username = '';
  url.password = '';
  return url.href;
}

/** Builds the service from the configuration. */
export function createMetadataService(config: Config, opts: MetadataServiceOptions = {}): MetadataService {
  const policy = createEgressPolicy({ allow: config.egressAllow, lookup: opts.lookup });
  const agent = createPinnedAgent({ connectTimeoutMs: config.metadataTimeoutMs, maxHeaderSize: MAX_RESPONSE_HEADER_BYTES });
  const metrics = opts.metrics ?? NO_METRICS;
  const fetchOne = (url: string): Promise<Metadata> =>
    fetchPageMetadata(url, {
      policy,
      agent,
      timeoutMs: config.metadataTimeoutMs,
      maxBytes: config.metadataMaxBytes,
      userAgent: config.metadataUserAgent,
      onOutcome: metrics.upstream,
    });
  if (!opts.cache) {
    return { fetch: (url) => fetchOne(checkTargetUrl(url)), ready: async () => {}, close: () => agent.close() };
  }
  const prefix = opts.redisPrefix ?? DEFAULT_PREFIX;
  // After a Redis failure the cache and the coalescer leave Redis alone for a few seconds.
  const redisHealth = withPause(opts.redisHealth ?? UNWATCHED);
  const cache = createMetadataCache(config.metadataCacheTtlS, opts.redis, redisHealth, prefix);
  const shared = opts.redis
    ? createSharedCoalescer(opts.redis, {
        prefix,
        fetchTimeoutMs: config.metadataTimeoutMs,
        cache,
        health: redisHealth,
        onWait: () => metrics.coalesced('shared'),
      })
    : null;
  const fetch = withCacheAndCoalescing(fetchOne, cache, { metrics, shared });
  return {
    fetch: (url) => fetch(checkTargetUrl(url)),
    ready: async () => shared?.ready(),
    close: async () => {
      await shared?.close();
      await agent.close();
    },
  };
}
