import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/app/core.js';
import { MemoryStrikeCounter, RedisStrikeCounter, type StrikeCounter } from '../../src/ratelimit/strikes.js';
import { REDIS_URL, uniqueName } from '../helpers/backends.js';

/** The same behaviour from both backends of the dashboard's throttles. */
const backends: Array<{ name: string; enabled: boolean; open(): Promise<{ counter: StrikeCounter; close(): Promise<void> }> }> = [
  { name: 'memory', enabled: true, open: async () => ({ counter: new MemoryStrikeCounter(), close: async () => {} }) },
  {
    name: 'redis',
    enabled: Boolean(REDIS_URL),
    open: async () => {
      const redis: Redis = await connectRedis(REDIS_URL!);
      const prefix = `${uniqueName('strikes')}:`;
      return {
        counter: new RedisStrikeCounter(redis, prefix),
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
  describe.skipIf(!backend.enabled)(`strike counter contract: ${backend.name}`, () => {
    let counter: StrikeCounter;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ counter, close } = await backend.open());
    });
    afterAll(async () => close());

    it('counts strikes with the time of the last one, and clear forgets them', async () => {
      expect(await counter.get('k1')).toBeUndefined();
      expect(await counter.strike('k1', 1000, 60_000)).toEqual({ count: 1, lastAt: 1000 });
      expect(await counter.strike('k1', 2500, 60_000)).toEqual({ count: 2, lastAt: 2500 });
      expect(await counter.get('k1')).toEqual({ count: 2, lastAt: 2500 });
      expect(await counter.get('k2')).toBeUndefined();
      await counter.clear('k1');
      expect(await counter.get('k1')).toBeUndefined();
    });

    it('counts concurrent strikes exactly', async () => {
      await Promise.all(Array.from({ length: 25 }, (_, i) => counter.strike('k3', i, 60_000)));
      expect((await counter.get('k3'))?.count).toBe(25);
    });

    it('forgets a key its time to live after the last strike', async () => {
      await counter.strike('k4', 1, 150);
      expect((await counter.get('k4'))?.count).toBe(1);
      await new Promise((r) => setTimeout(r, 400));
      expect(await counter.get('k4')).toBeUndefined();
    });
  });
}
