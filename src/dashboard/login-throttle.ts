import type { StrikeCounter, Strikes } from '../ratelimit/strikes.js';

/** How many failures a key may have before back-off starts, and how the back-off grows. */
export interface ThrottlePolicy {
  /** Failures allowed per email before back-off. */
  emailThreshold: number;
  /** Failures allowed per client IP before back-off (higher: offices share one address). */
  ipThreshold: number;
  /** Wait after the first failure over a threshold; doubles with each further failure. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A key with no failure for this long starts afresh. */
  forgetAfterMs: number;
}

/** After 5 failures for an email (20 for an IP): 15 s, 30 s, 1 min … capped at 15 min. */
export const DEFAULT_THROTTLE: ThrottlePolicy = {
  emailThreshold: 5,
  ipThreshold: 20,
  baseDelayMs: 15_000,
  maxDelayMs: 15 * 60_000,
  forgetAfterMs: 60 * 60_000,
};

/**
 * Log-in (and reset-request) throttling per email and per client IP over a strike counter: in this
 * process's memory without Redis, shared by every instance and kept across restarts with it, so N
 * instances do not give an attacker N times the attempts.
 */
export class LoginThrottle {
  constructor(
    private readonly strikes: StrikeCounter,
    readonly policy: ThrottlePolicy = DEFAULT_THROTTLE,
    private readonly now: () => number = Date.now,
    /** Separates the counts of throttles that share one counter (log-in, reset requests). */
    private readonly scope = 'login',
  ) {}

  /** Milliseconds the caller must wait before trying this email from this IP again (0: go ahead). */
  async retryAfterMs(email: string, ip: string): Promise<number> {
    const at = this.now();
    const [byEmail, byIp] = await Promise.all([this.strikes.get(this.emailKey(email)), this.strikes.get(this.ipKey(ip))]);
    return Math.max(this.wait(byEmail, this.policy.emailThreshold, at), this.wait(byIp, this.policy.ipThreshold, at));
  }

  /** Counts a failed attempt against both the email and the IP. */
  async fail(email: string, ip: string): Promise<void> {
    const at = this.now();
    // A block never outlasts the forget period (maxDelayMs ≤ forgetAfterMs in every policy), so expiring
    // the count then loses nothing.
    const ttl = this.policy.forgetAfterMs;
    await Promise.all([this.strikes.strike(this.emailKey(email), at, ttl), this.strikes.strike(this.ipKey(ip), at, ttl)]);
  }

  /** A correct password clears the email's count; the IP's stays, so one valid account cannot reset it. */
  async succeed(email: string): Promise<void> {
    await this.strikes.clear(this.emailKey(email));
  }

  /** The block left after `strikes` failures: none below the threshold, then a doubling delay from the last one. */
  private wait(strikes: Strikes | undefined, threshold: number, at: number): number {
    if (!strikes) return 0;
    const over = strikes.count - threshold;
    if (over < 0) return 0;
    const delay = Math.min(this.policy.maxDelayMs, this.policy.baseDelayMs * 2 ** Math.min(over, 30));
    return Math.max(0, strikes.lastAt + delay - at);
  }

  private emailKey(email: string): string {
    return `${this.scope}:e:${email.trim().toLowerCase()}`;
  }

  private ipKey(ip: string): string {
    return `${this.scope}:i:${ip}`;
  }
}
