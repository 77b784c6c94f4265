/** When a queued job runs: a delay drawn uniformly from [minMs, maxMs] after it was queued. */
export interface Jitter {
  minMs: number;
  maxMs: number;
}

/**
 * Runs jobs later, each after its own random delay, off the request that queued them. A request whose
 * follow-up work depends on a secret (does this email have an account?) then answers in the same time
 * either way, and the work lands at a random moment among other requests instead of right behind it.
 */
export class JitteredQueue<T> {
  private readonly pending = new Map<NodeJS.Timeout, T>();
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly run: (job: T) => Promise<void>,
    private readonly jitter: Jitter,
    private readonly random: () => number = Math.random,
  ) {}

  /** Queues a job; it runs after the jittered delay (or when the queue is closed). */
  push(job: T): void {
    const delay = this.jitter.minMs + this.random() * (this.jitter.maxMs - this.jitter.minMs);
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      this.start(job);
    }, delay);
    this.pending.set(timer, job);
  }

  /** Jobs queued or running. */
  get size(): number {
    return this.pending.size + this.running.size;
  }

  /** Runs every waiting job now and waits for all of them: nobody's request is dropped at shutdown. */
  async close(): Promise<void> {
    for (const [timer, job] of this.pending) {
      clearTimeout(timer);
      this.start(job);
    }
    this.pending.clear();
    await Promise.allSettled([...this.running]);
  }

  private start(job: T): void {
    // The job reports its own failures; a rejection here must not become an unhandled one.
    const done: Promise<void> = this.run(job)
      .catch(() => {})
      .finally(() => this.running.delete(done));
    this.running.add(done);
  }
}
