/**
 * Result cache and request coalescing for the metadata service.
 *
 * Successful results live for METADATA_CACHE_TTL_S (0 disables caching): in an in-process LRU, or in
 * Redis (JSON values with EX) when the core has one, so every instance shares them. Concurrent requests
 * for the same URL in one process share one upstream fetch whether or not caching is on; with Redis, the
 * instances also share fetches (shared-coalescing.ts). A cache that fails (Redis down) is a miss, never a
 * failed request.
 */
import crypto from 'node:crypto';
import type { Redis } from 'ioredis';
import { type DependencyHealth, UNWATCHED } from '../outage-log.js';
import { type MetadataMetrics, NO_METRICS } from './metrics.js';
import type { SharedCoalescer } from './shared-coalescing.js';
import type { Metadata } from './types.js';

/** Where successful results are kept. */
export interface MetadataCache {
  get(key: string): Promise<Metadata | undefined>;
  set(key: string, value: Metadata): Promise<void>;
}

/** In-process LRU with a per-entry expiry. */
export function createMemoryCache(ttlS: number, maxEntries = 10_000): MetadataCache {
  const entries = new Map<string, { value: Metadata; expiresAt: number }>();
  return {
    async get(key) {
      const hit = entries.get(key);
      if (!hit) return undefined;
      entries.delete(key);
      if (hit.expiresAt <= Date.now()) return undefined;
      entries.set(key, hit); // most recently used goes last
      return hit.value;
    },
    async set(key, value) {
      entries.delete(key);
      entries.set(key, { value, expiresAt: Date.now() + ttlS * 1000 });
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    },
  };
}

/** Redis-backed cache shared by every instance; keys are hashed so a 2 KB URL stays a short key. */
export function createRedisCache(
  redis: Redis,
  ttlS: number,
  health: DependencyHealth = UNWATCHED,
  prefix = DEFAULT_PREFIX,
): MetadataCache {
  const keyOf = (key: string): string => prefix + redisKeyId(key);
  return {
    async get(key) {
      if (health.available?.() === false) return undefined;
      try {
        const raw = await redis.get(keyOf(key));
        health.ok();
        return raw === null ? undefined : (JSON.parse(raw) as Metadata);
      } catch (err) {
        health.failed(err);
        return undefined;
      }
    },
    async set(key, value) {
      if (health.available?.() === false) return;
      try {
        await redis.set(keyOf(key), JSON.stringify(value), 'EX', ttlS);
        health.ok();
      } catch (err) {
        health.failed(err);
      }
    },
  };
}

/** The short id of a cache key in Redis names (cache entries, coalescing locks and messages). */
export function redisKeyId(key: string): string {
  return crypto.hash('sha256', key, 'base64url');
}

/** Where the metadata service keeps its Redis keys unless told otherwise. */
export const DEFAULT_PREFIX = 'pageworks:metadata:';

/** The cache for a configuration: none when the TTL is 0, Redis when there is one, else memory. */
export function createMetadataCache(
  ttlS: number,
  redis: Redis | undefined,
  health?: DependencyHealth,
  prefix?: string,
): MetadataCache | null {
  if (ttlS <= 0) return null;
  return redis ? createRedisCache(redis, ttlS, health, prefix) : createMemoryCache(ttlS);
}

/** The cache key of a URL: its WHATWG serialisation without the fragment (never sent to the target). */
export function cacheKey(url: string): string {
  const parsed = new URL(url);
  parsed.hash = '';
  return parsed.href;
}

/** What else withCacheAndCoalescing uses. */
export interface CoalescingOptions {
  metrics?: MetadataMetrics;
  /** Coalescing across instances (Redis). */
  shared?: SharedCoalescer | null;
}

/** Wraps a fetch function with the cache and coalescing of identical concurrent requests (in process, and shared). */
export function withCacheAndCoalescing(
  fetch: (url: string) => Promise<Metadata>,
  cache: MetadataCache | null,
  opts: CoalescingOptions = {},
): (url: string) => Promise<Metadata> {
  const metrics = opts.metrics ?? NO_METRICS;
  const { shared } = opts;
  const inFlight = new Map<string, Promise<Metadata>>();
  const load = async (key: string): Promise<Metadata> => {
    if (cache) {
      const cached = await cache.get(key);
      if (cached) {
        metrics.cacheHit();
        return cached;
      }
      metrics.cacheMiss();
    }
    // The fragment-less URL is fetched, so a result depends on its key alone.
    if (!shared) return store(key, await fetch(key));
    const { value, stored } = await shared.run(key, () => fetch(key));
    // What came through the coalescer is in the cache already, or on its way there.
    return stored ? value : store(key, value);
  };
  const store = (key: string, value: Metadata): Metadata => {
    // Not awaited: the caller need not wait for the store; a failed store only costs a later miss.
    if (cache) void cache.set(key, value);
    return value;
  };
  return (url) => {
    const key = cacheKey(url);
    const pending = inFlight.get(key);
    if (pending !== undefined) {
      metrics.coalesced('local');
      return pending;
    }
    const promise = load(key).finally(() => inFlight.delete(key));
    inFlight.set(key, promise);
    return promise;
  };
}
