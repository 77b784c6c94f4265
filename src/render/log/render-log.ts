/**
 * The render log: the RenderRecorder the renders report to. Records are written to the store in
 * batches off the request path (every second, or at once when a batch fills up), read back by
 * `GET /v1/renders/{id}` and the dashboard's Renders page, and swept after RENDER_LOG_RETENTION_DAYS.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { BatchedWrites } from '../../accounts/batched-writes.js';
import type { RenderRecord, RenderRecorder } from '../report/report.js';

const DAY_MS = 86_400_000;

/** Where the render log reports trouble (pino's Logger fits). */
export interface RenderLogLog {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/**
 * Where the render log keeps its records: the store's render-log methods it uses, declared here so
 * that render/ does not import the store (the store imports the record's shape from render/).
 */
export interface RenderLogStorage {
  insertRenderRecords(records: readonly RenderRecord[]): Promise<void>;
  findRenderRecord(id: string, accountId: string): Promise<RenderRecord | undefined>;
  purgeRenderRecords(before: number): Promise<number>;
}

/** What a render log is built from. */
export interface RenderLogOptions {
  store: RenderLogStorage;
  retentionDays: number;
  log: RenderLogLog;
  /** Longest a record waits in memory before it is written (default 1 s). */
  flushMs?: number;
  /** A batch this large is written at once (default 200). */
  maxBatch?: number;
  /** Records kept in memory while the store cannot be written; more are dropped, and counted (default 5,000). */
  maxPending?: number;
  /** How often records past the retention are deleted (default 15 min; the first sweep runs at start). */
  sweepMs?: number;
  /** The service's Prometheus registry: records waiting to be written, and records dropped. */
  registry?: Registry;
  now?: () => number;
}

/** The render log of one process: batched writes, reads that see this process's unwritten records, and the sweep. */
export class RenderLog implements RenderRecorder {
  private readonly batch: BatchedWrites<RenderRecord>;
  private readonly sweepTimer: NodeJS.Timeout;
  private readonly now: () => number;
  private readonly maxBatch: number;
  private readonly maxPending: number;
  private dropped = 0;
  private failing = false;
  private readonly droppedTotal: Counter | undefined;

  constructor(private readonly opts: RenderLogOptions) {
    this.now = opts.now ?? Date.now;
    this.maxBatch = opts.maxBatch ?? 200;
    this.maxPending = opts.maxPending ?? 5_000;
    this.batch = new BatchedWrites<RenderRecord>(
      // One record per render id: a second record of the same id (never expected) replaces the first.
      (_older, newer) => newer,
      (entries) => this.write(entries.map(([, record]) => record)),
      opts.flushMs ?? 1_000,
      (err) => {
        // Once per outage, not once a second: the records wait in memory and every flush retries them.
        if (this.failing) return;
        this.failing = true;
        opts.log.error({ err: (err as Error).message }, 'could not write render records; will retry');
      },
    );
    const sweep = () => {
      this.sweep().then(
        (n) => n > 0 && opts.log.info({ deleted: n }, 'deleted render records past RENDER_LOG_RETENTION_DAYS'),
        (err) => opts.log.error({ err: (err as Error).message }, 'could not delete old render records; will retry'),
      );
    };
    this.sweepTimer = setInterval(sweep, opts.sweepMs ?? 15 * 60_000).unref();
    sweep();
    if (opts.registry) {
      const batch = this.batch;
      new Gauge({
        name: 'pageworks_render_log_pending',
        help: 'Render records waiting to be written to the store',
        registers: [opts.registry],
        collect() {
          this.set(batch.size);
        },
      });
      this.droppedTotal = new Counter({
        name: 'pageworks_render_log_dropped_total',
        help: 'Render records dropped because the store could not be written for too long',
        registers: [opts.registry],
      });
    }
  }

  /** Queues one record; never throws and never waits on the store. */
  record(record: RenderRecord): void {
    if (this.batch.size >= this.maxPending && this.batch.get(record.id) === undefined) {
      // The store has been away long enough to fill memory: losing a record beats losing the process.
      this.droppedTotal?.inc();
      if (this.dropped++ === 0) this.opts.log.warn({ maxPending: this.maxPending }, 'render log full; dropping render records');
      return;
    }
    this.batch.add(record.id, record);
    // A full batch goes at once, except while the store is failing: then the interval's retry is enough,
    // not one more failing write per render.
    if (this.batch.size >= this.maxBatch && !this.failing) void this.batch.flush();
  }

  /** The record of a render of this account: one this process has not written yet, else the store's. */
  async find(id: string, accountId: string): Promise<RenderRecord | undefined> {
    const unwritten = this.batch.get(id);
    if (unwritten !== undefined) return unwritten.accountId === accountId ? unwritten : undefined;
    return this.opts.store.findRenderRecord(id, accountId);
  }

  /** Deletes records older than the retention; returns how many. */
  sweep(): Promise<number> {
    return this.opts.store.purgeRenderRecords(this.now() - this.opts.retentionDays * DAY_MS);
  }

  /** Writes what is pending now. */
  flush(): Promise<void> {
    return this.batch.flush();
  }

  /** Stops the timers and writes what is pending (before the store closes). */
  async close(): Promise<void> {
    clearInterval(this.sweepTimer);
    await this.batch.close();
  }

  private async write(records: RenderRecord[]): Promise<void> {
    await this.opts.store.insertRenderRecords(records);
    if (!this.failing && this.dropped === 0) return;
    if (this.dropped > 0)
      this.opts.log.warn({ dropped: this.dropped }, 'render log writes again; render records were dropped meanwhile');
    else this.opts.log.info({}, 'render log writes again');
    this.failing = false;
    this.dropped = 0;
  }
}
