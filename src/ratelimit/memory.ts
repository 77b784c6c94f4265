import { decide, type RateDecision, type RateLimiter } from './limiter.js';

/** In-process limiter: exact within one process, the default without Redis. */
export class MemoryRateLimiter implements RateLimiter {
  readonly kind = 'memory';
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    // Drop finished windows now and then so idle accounts do not pile up.
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  async hit(key: string, limit: number, windowMs: number, weight = 1): Promise<RateDecision> {
    const now = this.now();
    const mapKey = `${key}:${windowMs}`;
    let w = this.windows.get(mapKey);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + windowMs };
      this.windows.set(mapKey, w);
    }
    // Checked before it is added: a hit that does not fit is refused without spending the window.
    const allowed = w.count + weight <= limit;
    if (allowed) w.count += weight;
    return decide(allowed, w.count, limit, w.resetAt - now);
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, w] of this.windows) if (w.resetAt <= now) this.windows.delete(key);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.windows.clear();
  }
}
