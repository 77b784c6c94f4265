import { type OutageLog, type OutageLogger, outageLog } from '../outage-log.js';
import type { RateDecision, RateLimiter } from './limiter.js';

/**
 * Uses the shared limiter and, while it fails (Redis down), a per-instance one: the API keeps
 * serving with per-instance limits instead of refusing everyone. The switch is logged loudly, once
 * each way.
 */
export class FallbackRateLimiter implements RateLimiter {
  private readonly health: OutageLog;

  constructor(
    private readonly primary: RateLimiter,
    private readonly fallback: RateLimiter,
    log: OutageLogger,
  ) {
    this.health = outageLog(
      log,
      {
        down: 'shared rate limiter unavailable; falling back to per-instance limits',
        up: 'shared rate limiter is back; limits hold across instances again',
      },
      Infinity,
    );
  }

  get kind(): string {
    return this.health.down ? `${this.primary.kind} (degraded: ${this.fallback.kind})` : this.primary.kind;
  }

  /** Whether the shared limiter is currently unavailable. */
  get isDegraded(): boolean {
    return this.health.down;
  }

  async hit(key: string, limit: number, windowMs: number, weight = 1): Promise<RateDecision> {
    try {
      const decision = await this.primary.hit(key, limit, windowMs, weight);
      this.health.ok();
      return decision;
    } catch (err) {
      this.health.failed(err);
      return this.fallback.hit(key, limit, windowMs, weight);
    }
  }

  async close(): Promise<void> {
    await this.primary.close();
    await this.fallback.close();
  }
}
