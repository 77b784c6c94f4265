import type { Redis } from 'ioredis';
import { decide, type RateDecision, type RateLimiter } from './limiter.js';

// INCRBY and the expiry in one script: atomic on the server, one round trip, shared by all instances.
const HIT_SCRIPT = `
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

type RedisWithHit = Redis & { pwRateHit(key: string, windowMs: number, weight: number): Promise<[number, number]> };

/** Limiter shared by every instance through Redis. */
export class RedisRateLimiter implements RateLimiter {
  readonly kind = 'redis';
  private readonly redis: RedisWithHit;

  constructor(
    redis: Redis,
    private readonly prefix = 'pw:rl:',
  ) {
    if (!('pwRateHit' in redis)) redis.defineCommand('pwRateHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    this.redis = redis as RedisWithHit;
  }

  async hit(key: string, limit: number, windowMs: number, weight = 1): Promise<RateDecision> {
    const [count, ttl] = await this.redis.pwRateHit(`${this.prefix}${key}:${windowMs}`, windowMs, weight);
    return decide(count, limit, ttl);
  }

  /** The Redis connection belongs to the caller, who closes it. */
  async close(): Promise<void> {}
}
