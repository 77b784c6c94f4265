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

interface Entry {
  failures: number;
  lastFailureAt: number;
  blockedUntil: number;
}

// Bounds memory under a flood of distinct emails/IPs; the oldest entries go first.
const MAX_ENTRIES = 100_000;

/**
 * Login throttling per email and per client IP, kept in this process's memory: stricter than any
 * API limit, and reset by a restart (acceptable: an attacker gains one round of five guesses).
 * With several dashboard instances each keeps its own counts.
 */
export class LoginThrottle {
  private readonly entries = new Map<string, Entry>();

  constructor(
    readonly policy: ThrottlePolicy = DEFAULT_THROTTLE,
    private readonly now: () => number = Date.now,
  ) {}

  /** Milliseconds the caller must wait before trying this email from this IP again (0: go ahead). */
  retryAfterMs(email: string, ip: string): number {
    const at = this.now();
    const wait = (key: string) => {
      const entry = this.live(key, at);
      return entry ? Math.max(0, entry.blockedUntil - at) : 0;
    };
    return Math.max(wait(emailKey(email)), wait(ipKey(ip)));
  }

  /** Counts a failed attempt against both the email and the IP. */
  fail(email: string, ip: string): void {
    const at = this.now();
    this.bump(emailKey(email), this.policy.emailThreshold, at);
    this.bump(ipKey(ip), this.policy.ipThreshold, at);
  }

  /** A correct password clears the email's count; the IP's stays, so one valid account cannot reset it. */
  succeed(email: string): void {
    this.entries.delete(emailKey(email));
  }

  private live(key: string, at: number): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && at - entry.lastFailureAt > this.policy.forgetAfterMs && at >= entry.blockedUntil) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private bump(key: string, threshold: number, at: number): void {
    const entry = this.live(key, at) ?? { failures: 0, lastFailureAt: at, blockedUntil: 0 };
    entry.failures += 1;
    entry.lastFailureAt = at;
    const over = entry.failures - threshold;
    if (over >= 0) {
      entry.blockedUntil = at + Math.min(this.policy.maxDelayMs, this.policy.baseDelayMs * 2 ** Math.min(over, 30));
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > MAX_ENTRIES) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }
}

function emailKey(email: string): string {
  return `e:${email.trim().toLowerCase()}`;
}

function ipKey(ip: string): string {
  return `i:${ip}`;
}
