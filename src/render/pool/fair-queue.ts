/**
 * Admission to the renderer: at most `concurrency` renders at once, at most `limit` interactive renders
 * waiting, and waiting renders served round-robin across accounts so one account's burst cannot starve
 * another's request. Interactive renders (a client holds a connection for them) go before background ones
 * (render jobs): a job waits only while no interactive render does.
 */
import { RenderError } from '../../errors.js';

/** Who waits for the render: a client on an open connection, or a job nobody holds a connection for. */
export type RenderPriority = 'interactive' | 'background';

interface Waiter {
  grant: (release: () => void) => void;
  fail: (err: unknown) => void;
  cleanup: () => void;
}

/** Per-account FIFO queues served in turn; insertion order is the turn order. */
type Turns = Map<string, Waiter[]>;

/** A counting semaphore with per-account FIFO queues served in turn, interactive ones first. */
export class FairQueue {
  private running = 0;
  private readonly counts: Record<RenderPriority, number> = { interactive: 0, background: 0 };
  private readonly turns: Record<RenderPriority, Turns> = { interactive: new Map(), background: new Map() };
  /** Called whenever a turn ends (a slot may be free for the next job claim). */
  onRelease: () => void = () => {};

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

  /** Renders waiting for a turn, interactive and background. */
  get waiting(): number {
    return this.counts.interactive + this.counts.background;
  }

  /** Interactive renders waiting for a turn (a job claim waits while there is one). */
  get waitingInteractive(): number {
    return this.counts.interactive;
  }

  /**
   * Waits for a turn; resolves to the release function. Rejects with OVERLOADED when `limit` interactive
   * renders wait already (background ones are bounded by the job worker's concurrency).
   */
  acquire(account: string, options: { signal?: AbortSignal; priority?: RenderPriority } = {}): Promise<() => void> {
    const { signal, priority = 'interactive' } = options;
    const ahead = priority === 'interactive' ? this.counts.interactive : this.counts.interactive + this.counts.background;
    if (this.running < this.concurrency && ahead === 0) {
      this.running += 1;
      return Promise.resolve(this.releaser());
    }
    if (priority === 'interactive' && this.counts.interactive >= this.limit) {
      const retry = Math.max(1, Math.ceil(this.retryAfterS()));
      return Promise.reject(
        new RenderError('OVERLOADED', `render queue is full (${this.limit} waiting); retry in ${retry} s`, retry),
      );
    }
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        this.remove(priority, account, waiter);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        grant: resolve,
        fail: reject,
        cleanup: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const turns = this.turns[priority];
      const queue = turns.get(account);
      if (queue) queue.push(waiter);
      else turns.set(account, [waiter]);
      this.counts[priority] += 1;
    });
  }

  /** Rejects every waiting render of these priorities (shutdown). */
  failAll(err: unknown, priorities: readonly RenderPriority[] = ['interactive', 'background']): void {
    for (const priority of priorities) {
      for (const queue of this.turns[priority].values()) {
        for (const waiter of queue) {
          waiter.cleanup();
          waiter.fail(err);
        }
      }
      this.turns[priority].clear();
      this.counts[priority] = 0;
    }
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running -= 1;
      this.next();
      this.onRelease();
    };
  }

  private next(): void {
    while (this.running < this.concurrency) {
      const priority: RenderPriority = this.counts.interactive > 0 ? 'interactive' : 'background';
      const turns = this.turns[priority];
      const first = turns.entries().next();
      if (first.done) return;
      const [account, queue] = first.value;
      const waiter = queue.shift() as Waiter;
      turns.delete(account);
      // Still waiting: this account goes behind every other account that waits.
      if (queue.length > 0) turns.set(account, queue);
      this.counts[priority] -= 1;
      this.running += 1;
      waiter.cleanup();
      waiter.grant(this.releaser());
    }
  }

  private remove(priority: RenderPriority, account: string, waiter: Waiter): void {
    const turns = this.turns[priority];
    const queue = turns.get(account);
    const index = queue?.indexOf(waiter) ?? -1;
    if (!queue || index < 0) return;
    queue.splice(index, 1);
    this.counts[priority] -= 1;
    if (queue.length === 0) turns.delete(account);
  }
}
