/**
 * Accumulates values by key in memory and writes them in one batch every `intervalMs`, so the hot
 * path never waits for the store. A failed write puts its values back (merged), so nothing is lost
 * while the store is away; `close()` flushes what is left.
 */
export class BatchedWrites<V> {
  private pending = new Map<string, V>();
  /** The batch being written, until its write ends: still readable through get(). */
  private writing: Map<string, V> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly merge: (older: V, newer: V) => V,
    private readonly write: (entries: Array<[string, V]>) => Promise<void>,
    intervalMs: number,
    private readonly onError: (err: unknown) => void = () => {},
  ) {
    if (intervalMs > 0) {
      this.timer = setInterval(() => void this.flush(), intervalMs);
      this.timer.unref();
    }
  }

  /** Records a value; merged with what is pending for the same key. */
  add(key: string, value: V): void {
    const prev = this.pending.get(key);
    this.pending.set(key, prev === undefined ? value : this.merge(prev, value));
  }

  /** The value pending for a key, or being written now; undefined once written (or never added). */
  get(key: string): V | undefined {
    return this.pending.get(key) ?? this.writing?.get(key);
  }

  /** Number of keys waiting to be written. */
  get size(): number {
    return this.pending.size;
  }

  /** Writes everything pending now (one write at a time). */
  async flush(): Promise<void> {
    while (this.flushing !== undefined) await this.flushing;
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.writing = batch;
    this.flushing = this.write([...batch])
      .catch((err) => {
        for (const [key, value] of batch) this.add(key, value);
        this.onError(err);
      })
      .finally(() => {
        this.writing = undefined;
        this.flushing = undefined;
      });
    await this.flushing;
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}
