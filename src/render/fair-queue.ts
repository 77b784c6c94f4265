/**
 * Admission to the renderer: at most `concurrency` renders at once, at most `limit` waiting, and waiting
 * renders served round-robin across accounts so one account's burst cannot starve another's request.
 */
import { RenderError } from '../errors.js';

interface Waiter {
  grant: (release: () => void) => void;
  fail: (err: unknown) => void;
  cleanup: () => void;
}

/** A counting semaphore with per-account FIFO queues served in turn. */
export class FairQueue {
  private running = 0;
  private waitingCount = 0;
  /** Insertion order is the turn order: an account served goes to the back if it still has waiters. */
  private readonly queues = new Map<string, Waiter[]>();

  constructor(
    private readonly concurrency: number,
    private readonly limit: number,
    /** Seconds a client should wait before retrying when the queue is full. */
    private readonly retryAfterS: () => number = () => 1,
  ) {}

  /** Renders running now. */
  get active(): number {
    return this.running;
  }

  /** Renders waiting for a turn. */
  get waiting(): number {
    return this.waitingCount;
  }

  /** Waits for a turn; resolves to the release function. Rejects with OVERLOADED when the queue is full. */
  acquire(account: string, signal?: AbortSignal): Promise<() => void> {
    if (this.running < this.concurrency && this.waitingCount === 0) {
      this.running += 1;
      return Promise.resolve(this.releaser());
    }
    if (this.waitingCount >= this.limit) {
      const retry = Math.max(1, Math.ceil(this.retryAfterS()));
      return Promise.reject(
        new RenderError('OVERLOADED', `render queue is full (${this.limit} waiting); retry in ${retry} s`, retry),
      );
    }
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.remove(account, waiter);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        grant: resolve,
        fail: reject,
        cleanup: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const queue = this.queues.get(account);
      if (queue) queue.push(waiter);
      else this.queues.set(account, [waiter]);
      this.waitingCount += 1;
    });
  }

  /** Rejects every waiting render (shutdown). */
  failAll(err: unknown): void {
    for (const queue of this.queues.values()) {
      for (const waiter of queue) {
        waiter.cleanup();
        waiter.fail(err);
      }
    }
    this.queues.clear();
    this.waitingCount = 0;
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running -= 1;
      this.next();
    };
  }

  private next(): void {
    while (this.running < this.concurrency) {
      const first = this.queues.entries().next();
      if (first.done) return;
      const [account, queue] = first.value;
      const waiter = queue.shift() as Waiter;
      this.queues.delete(account);
      // Still waiting: this account goes behind every other account that waits.
      if (queue.length > 0) this.queues.set(account, queue);
      this.waitingCount -= 1;
      this.running += 1;
      waiter.cleanup();
      waiter.grant(this.releaser());
    }
  }

  private remove(account: string, waiter: Waiter): void {
    const queue = this.queues.get(account);
    const index = queue?.indexOf(waiter) ?? -1;
    if (!queue || index < 0) return;
    queue.splice(index, 1);
    this.waitingCount -= 1;
    if (queue.length === 0) this.queues.delete(account);
  }
}
