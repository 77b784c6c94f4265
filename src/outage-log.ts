/**
 * Logs the outage of a shared dependency (Redis) by state, not by request: a warning when it starts,
 * a reminder at most every `repeatMs` while it lasts, and one line when it ends. Used by the metadata
 * cache and coalescer and by the rate limiter's per-instance fallback.
 */

/** Where a cache or coalescer reports each Redis command's success or failure. */
export interface DependencyHealth {
  failed(err: unknown): void;
  ok(): void;
  /** Whether to use the dependency now (absent: always). */
  available?(): boolean;
}

/** Reports nowhere. */
export const UNWATCHED: DependencyHealth = { failed() {}, ok() {} };

/** The logging side of an outage log: warn while down, info when back. */
export interface OutageLogger {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** A DependencyHealth that logs outages and knows whether one is under way. */
export interface OutageLog extends DependencyHealth {
  /** True from a failure until the next success. */
  readonly down: boolean;
}

/** An OutageLog; `repeatMs` Infinity warns once per outage; `now` is a test seam. */
export function outageLog(
  log: OutageLogger,
  messages: { down: string; up: string },
  repeatMs = 30_000,
  now: () => number = Date.now,
): OutageLog {
  let down = false;
  let downSince = 0;
  let lastWarned = 0;
  let failures = 0;
  return {
    failed(err) {
      const t = now();
      failures++;
      if (!down) {
        down = true;
        downSince = t;
      } else if (t - lastWarned < repeatMs) return;
      lastWarned = t;
      log.warn({ err: (err as Error)?.message ?? String(err), failures, downForMs: t - downSince }, messages.down);
    },
    ok() {
      if (!down) return;
      log.info({ failures, downForMs: now() - downSince }, messages.up);
      down = false;
      failures = 0;
    },
    get down() {
      return down;
    },
  };
}

/**
 * Adds `available` to a DependencyHealth: false for `pauseMs` after a failure (unless a command succeeded
 * since), so a Redis that hangs costs one command timeout per pause, not one per request.
 */
export function withPause(inner: DependencyHealth, pauseMs = 5000, now: () => number = Date.now): DependencyHealth {
  let pausedUntil = 0;
  return {
    failed(err) {
      pausedUntil = now() + pauseMs;
      inner.failed(err);
    },
    ok() {
      pausedUntil = 0;
      inner.ok();
    },
    available: () => pausedUntil === 0 || now() >= pausedUntil,
  };
}
