import type { Redis } from 'ioredis';
import { type OutageLog, type OutageLogger, outageLog } from '../outage-log.js';

/** Failures counted against one key (an email, a client IP) and when the last one happened. */
export interface Strikes {
  count: number;
  lastAt: number;
}

/**
 * Counts failures per key for the dashboard's throttles (log-in, password reset). A key is forgotten
 * `ttlMs` after its last failure. Behind the same two backends as the rate limiter, so with Redis the
 * counts hold across instances and restarts.
 */
export interface StrikeCounter {
  readonly kind: string;
  /** Counts one failure at `at` and returns the key's strikes including it. */
  strike(key: string, at: number, ttlMs: number): Promise<Strikes>;
  /** The key's strikes, or undefined when it has none (never failed, or forgotten). */
  get(key: string): Promise<Strikes | undefined>;
  /** Forgets the key's strikes. */
  clear(key: string): Promise<void>;
}

// Bounds memory under a flood of distinct emails/IPs; the oldest entries go first.
const MAX_ENTRIES = 100_000;

/** In-process strikes: the default without Redis; a restart forgets them. */
export class MemoryStrikeCounter implements StrikeCounter {
  readonly kind = 'memory';
  private readonly entries = new Map<string, Strikes & { expiresAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async strike(key: string, at: number, ttlMs: number): Promise<Strikes> {
    // Read and write with no await between them: concurrent strikes are counted exactly.
    const entry = { count: (this.live(key)?.count ?? 0) + 1, lastAt: at, expiresAt: this.now() + ttlMs };
    // Re-inserted so the Map's order is least-recently-failed first.
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > MAX_ENTRIES) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    return { count: entry.count, lastAt: entry.lastAt };
  }

  async get(key: string): Promise<Strikes | undefined> {
    const entry = this.live(key);
    return entry && { count: entry.count, lastAt: entry.lastAt };
  }

  async clear(key: string): Promise<void> {
    this.entries.delete(key);
  }

  private live(key: string): (Strikes & { expiresAt: number }) | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }
}

// Count, time and expiry in one script: atomic across instances, one round trip.
const STRIKE_SCRIPT = `
local n = redis.call('HINCRBY', KEYS[1], 'n', 1)
redis.call('HSET', KEYS[1], 't', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return n
`;

type RedisWithStrike = Redis & { pwStrike(key: string, at: number, ttlMs: number): Promise<number> };

/** Strikes shared by every instance through Redis; they survive a restart of any instance. */
export class RedisStrikeCounter implements StrikeCounter {
  readonly kind = 'redis';
  private readonly redis: RedisWithStrike;

  constructor(
    redis: Redis,
    private readonly prefix = 'pw:strikes:',
  ) {
    if (!('pwStrike' in redis)) redis.defineCommand('pwStrike', { numberOfKeys: 1, lua: STRIKE_SCRIPT });
    this.redis = redis as RedisWithStrike;
  }

  async strike(key: string, at: number, ttlMs: number): Promise<Strikes> {
    const count = await this.redis.pwStrike(this.prefix + key, at, ttlMs);
    return { count, lastAt: at };
  }

  async get(key: string): Promise<Strikes | undefined> {
    const [n, t] = await this.redis.hmget(this.prefix + key, 'n', 't');
    return n === null || t === null ? undefined : { count: Number(n), lastAt: Number(t) };
  }

  async clear(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }
}

/**
 * The shared counter and, while it fails (Redis down), a per-instance one, as the rate limiter does:
 * log-in keeps working with per-instance throttles instead of refusing everyone.
 */
export class FallbackStrikeCounter implements StrikeCounter {
  private readonly health: OutageLog;

  constructor(
    private readonly primary: StrikeCounter,
    private readonly fallback: StrikeCounter,
    log: OutageLogger,
  ) {
    this.health = outageLog(
      log,
      {
        down: 'shared log-in throttle unavailable; falling back to per-instance throttles',
        up: 'shared log-in throttle is back',
      },
      Infinity,
    );
  }

  get kind(): string {
    return this.health.down ? `${this.primary.kind} (degraded: ${this.fallback.kind})` : this.primary.kind;
  }

  private async either<T>(use: (counter: StrikeCounter) => Promise<T>): Promise<T> {
    try {
      const result = await use(this.primary);
      this.health.ok();
      return result;
    } catch (err) {
      this.health.failed(err);
      return use(this.fallback);
    }
  }

  strike(key: string, at: number, ttlMs: number): Promise<Strikes> {
    return this.either((c) => c.strike(key, at, ttlMs));
  }

  get(key: string): Promise<Strikes | undefined> {
    return this.either((c) => c.get(key));
  }

  clear(key: string): Promise<void> {
    return this.either((c) => c.clear(key));
  }
}
