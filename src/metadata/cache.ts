/**
 * The metadata service's result cache. Successful results live for METADATA_CACHE_TTL_S (0 disables
 * caching): in an in-process LRU, or in Redis (JSON values with EX) when the core has one, so every
 * instance shares them. A cache that fails (Redis down) is a miss, never a failed request. Fetches go
 * through it in cached-fetch.ts.
 */
import crypto from 'node:crypto';
import type { Redis } from 'ioredis';
import { type DependencyHealth, UNWATCHED } from '../outage-log.js';
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
