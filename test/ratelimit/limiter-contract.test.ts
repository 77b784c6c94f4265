import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/app/core.js';
import type { RateLimiter } from '../../src/ratelimit/limiter.js';
import { MemoryRateLimiter } from '../../src/ratelimit/memory.js';
import { RedisRateLimiter } from '../../src/ratelimit/redis.js';
import { REDIS_URL, uniqueName } from '../helpers/backends.js';

interface Backend {
  name: string;
  enabled: boolean;
  open(): Promise<{ limiter: RateLimiter; close(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: 'memory',
    enabled: true,
    open: async () => {
      const limiter = new MemoryRateLimiter();
      return { limiter, close: () => limiter.close() };
    },
  },
  {
    name: 'redis',
    enabled: Boolean(REDIS_URL),
    open: async () => {
      const redis: Redis = await connectRedis(REDIS_URL!);
      const prefix = `${uniqueName('rl')}:`;
      const limiter = new RedisRateLimiter(redis, prefix);
      return {
        limiter,
        close: async () => {
          const keys = await redis.keys(`${prefix}*`);
          if (keys.length) await redis.del(...keys);
          redis.disconnect();
        },
      };
    },
  },
];

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`rate limiter contract: ${backend.name}`, () => {
    let limiter: RateLimiter;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ limiter, close } = await backend.open());
    });
    afterAll(async () => close?.());

    it('admits exactly the limit out of 200 concurrent hits', async () => {
      const decisions = await Promise.all(Array.from({ length: 200 }, () => limiter.hit('burst', 50, 60_000)));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(50);
      expect(decisions.filter((d) => !d.allowed)).toHaveLength(150);
      expect(Math.min(...decisions.map((d) => d.remaining))).toBe(0);
      for (const d of decisions) {
        expect(d.limit).toBe(50);
        expect(d.resetMs).toBeGreaterThan(0);
        expect(d.resetMs).toBeLessThanOrEqual(60_000);
      }
    });

    it('counts remaining requests down', async () => {
      const seen = [];
      for (let i = 0; i < 4; i++) seen.push((await limiter.hit('countdown', 3, 60_000)).remaining);
      expect(seen).toEqual([2, 1, 0, 0]);
    });

    it('counts a weighted hit as that many requests (an assembly counts its parts)', async () => {
      const first = await limiter.hit('weighted', 10, 60_000, 4);
      expect([first.allowed, first.remaining]).toEqual([true, 6]);
      const second = await limiter.hit('weighted', 10, 60_000, 6);
      expect([second.allowed, second.remaining]).toEqual([true, 0]);
      expect((await limiter.hit('weighted', 10, 60_000)).allowed).toBe(false);
    });

    it('does not count a refused hit: a weighted one over what is left leaves the window as it was', async () => {
      expect((await limiter.hit('refused', 10, 60_000, 4)).remaining).toBe(6);
      const refused = await limiter.hit('refused', 10, 60_000, 7);
      expect([refused.allowed, refused.remaining]).toEqual([false, 6]);
      expect(refused.resetMs).toBeGreaterThan(0);
      const fits = await limiter.hit('refused', 10, 60_000, 6);
      expect([fits.allowed, fits.remaining]).toEqual([true, 0]);
      const over = await limiter.hit('refused', 10, 60_000);
      expect([over.allowed, over.remaining]).toEqual([false, 0]);
    });

    it('admits weighted hits exactly under concurrency: 40 hits of 3 against 100 admit 33', async () => {
      const decisions = await Promise.all(Array.from({ length: 40 }, () => limiter.hit('weighted-burst', 100, 60_000, 3)));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(33);
      expect((await limiter.hit('weighted-burst', 100, 60_000)).remaining).toBe(0);
    });

    it('keeps keys independent', async () => {
      expect((await limiter.hit('a', 1, 60_000)).allowed).toBe(true);
      expect((await limiter.hit('a', 1, 60_000)).allowed).toBe(false);
      expect((await limiter.hit('b', 1, 60_000)).allowed).toBe(true);
    });

    it('opens a new window after the old one ends', async () => {
      expect((await limiter.hit('short', 1, 300)).allowed).toBe(true);
      expect((await limiter.hit('short', 1, 300)).allowed).toBe(false);
      await new Promise((r) => setTimeout(r, 450));
      expect((await limiter.hit('short', 1, 300)).allowed).toBe(true);
    });
  });
}
