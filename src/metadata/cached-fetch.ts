/**
 * Fetches through the result cache, and coalesces identical requests: concurrent requests for the same
 * URL in one process share one upstream fetch whether or not caching is on; with Redis, the instances
 * also share fetches (shared-coalescing.ts).
 */
import type { MetadataCache } from './cache.js';
import { type MetadataMetrics, NO_METRICS } from './metrics.js';
import type { SharedCoalescer } from './shared-coalescing.js';
import type { Metadata } from './types.js';

/**
 * The cache key of a URL: its WHATWG serialisation without the fragment (never sent to the target).
 * A serialisation (checkTargetUrl's) is cut at its first `#`, which the serialiser escapes everywhere
 * else: parsing it once more would cost more than the rest of the key's work.
 */
export function cacheKey(url: string): string {
  const hash = url.indexOf('#');
  return hash === -1 ? url : url.slice(0, hash);
}

/** What else withCacheAndCoalescing uses. */
export interface CoalescingOptions {
  metrics?: MetadataMetrics;
  /** Coalescing across instances (Redis). */
  shared?: SharedCoalescer | null;
}

/**
 * Wraps a fetch function with the cache and coalescing of identical concurrent requests (in process, and
 * shared). Its URLs are WHATWG serialisations (checkTargetUrl's).
 */
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
