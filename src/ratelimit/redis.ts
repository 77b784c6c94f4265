import type { Redis } from 'ioredis';
import { decide, type RateDecision, type RateLimiter } from './limiter.js';

// The check, the INCRBY and the expiry in one script: atomic on the server, one round trip, shared by all
// instances. The check comes first, so a hit that does not fit is refused without being counted.
const HIT_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local weight = tonumber(ARGV[2])
local allowed = 0
if count + weight <= tonumber(ARGV[3]) then
  count = redis.call('INCRBY', KEYS[1], weight)
  allowed = 1
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
elseif ttl == -2 then
  ttl = tonumber(ARGV[1])
end
return {allowed, count, ttl}
`;

type RedisWithHit = Redis & {
  pwRateHit(key: string, windowMs: number, weight: number, limit: number): Promise<[number, number, number]>;
};

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
    const [allowed, count, ttl] = await this.redis.pwRateHit(`${this.prefix}${key}:${windowMs}`, windowMs, weight, limit);
    return decide(allowed === 1, count, limit, ttl);
  }

  /** The Redis connection belongs to the caller, who closes it. */
  async close(): Promise<void> {}
}
