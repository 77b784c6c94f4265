import { type RateDecision, type RateLimiter } from './limiter.js';

/**
 * Uses the shared limiter and, while it fails (Redis down), a per-instance one: the API keeps
 * serving with per-instance limits instead of refusing everyone. The switch is logged loudly.
 */
export class FallbackRateLimiter implements RateLimiter {
  private degraded = false;

  constructor(
    private readonly primary: RateLimiter,
    private readonly fallback: RateLimiter,
    private readonly log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void },
  ) {}

  get kind(): string {
    return this.degraded ? `${this.primary.kind} (degraded: ${this.fallback.kind})` : this.primary.kind;
  }

  /** Whether the shared limiter is currently unavailable. */
  get isDegraded(): boolean {
    return this.degraded;
  }

  async hit(key: string, limit: number, windowMs: number): Promise<RateDecision> {
    try {
      const decision = await this.primary.hit(key, limit, windowMs);
      if (this.degraded) {
        this.degraded = false;
        this.log.info({ limiter: this.primary.kind }, 'shared rate limiter is back; limits hold across instances again');
      }
      return decision;
    } catch (err) {
      if (!this.degraded) {
        this.degraded = true;
        this.log.warn(
          { limiter: this.primary.kind, err: (err as Error).message },
          'shared rate limiter unavailable; falling back to per-instance limits',
        );
      }
      return this.fallback.hit(key, limit, windowMs);
    }
  }

  async close(): Promise<void> {
    await this.primary.close();
    await this.fallback.close();
  }
}
