/**
 * Remembers query results for exactly as long as the database provably has not changed.
 *
 * Every `get` first reads the database's change stamp; a stamp that differs from the one the entries were
 * read under empties the cache. On SQLite the stamp is this connection's `total_changes()` (its own
 * writes) and `PRAGMA data_version` (which moves on every commit by any other connection, in this process
 * or another, such as `pageworks keys revoke` while `serve` runs). So a cached row is always the row the
 * query would return now: a revoked key is refused on the very next request (docs/accounts.md#api-keys).
 *
 * Reading the stamp costs about a fifth of the key lookup it saves (2 µs against 9–11 µs, measured on
 * this machine's 2 cores).
 */

/** Reads the change stamp: numbers that all stay the same while nothing is written. */
export type ChangeStamp = () => readonly number[];

/** A map of query results, emptied whenever the change stamp moves. */
export class UnchangedCache<V> {
  private readonly entries = new Map<string, V>();
  private stamp: readonly number[] = [];

  constructor(
    private readonly readStamp: ChangeStamp,
    /** Past this many entries the cache starts over (a bound on memory, not a policy). */
    private readonly maxEntries = 10_000,
  ) {}

  /** The value stored for `key` if nothing was written since; undefined otherwise. */
  get(key: string): V | undefined {
    const now = this.readStamp();
    if (!sameStamp(now, this.stamp)) {
      this.entries.clear();
      this.stamp = now;
    }
    return this.entries.get(key);
  }

  /**
   * Stores a value read after the last `get`. A write between that `get` and the read that produced
   * `value` moved the stamp, so the next `get` drops it: nothing stale can be served.
   */
  set(key: string, value: V): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, value);
  }
}

function sameStamp(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
