/**
 * The render log: the RenderRecorder the renders report to. Records are written to the store in
 * batches off the request path (every second, or at once when a batch fills up), read back by
 * `GET /v1/renders/{id}` and the dashboard's Renders page, and swept after RENDER_LOG_RETENTION_DAYS.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { BatchedWrites } from '../../batched-writes.js';
import { cutText } from '../../cut-text.js';
import type { RecordAssembly, RecordPart, RenderRecord, RenderRecorder } from '../../report/report.js';
import { storedEntries } from '../../report/report-schema.js';
import type { ServiceLog } from '../../service-log.js';
import { fitEntries, jsonBytes, MAX_RECORD_BYTES } from '../report/report-size.js';
import { AccountBudget } from './account-budget.js';

const DAY_MS = 86_400_000;
/** How long a record waits in memory, at most, before its batch is written (while the store answers). */
export const RENDER_LOG_FLUSH_MS = 1_000;

/**
 * Where the render log keeps its records: the store's render-log methods it uses, declared here so
 * that render/ does not import the store (the store imports the record's shape from render/).
 */
export interface RenderLogStorage {
  insertRenderRecords(records: readonly RenderRecord[]): Promise<void>;
  findRenderRecord(id: string, accountId: string): Promise<RenderRecord | undefined>;
  renderLogBytes(accountId: string): Promise<number>;
  purgeRenderRecords(before: number): Promise<number>;
}

/** What a render log is built from. */
export interface RenderLogOptions {
  store: RenderLogStorage;
  retentionDays: number;
  /** Bytes of report entries one account's records keep (RENDER_LOG_ACCOUNT_KIB; default 64 MiB). */
  accountBytes?: number;
  log: ServiceLog;
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
  private readonly budget: AccountBudget;

  constructor(private readonly opts: RenderLogOptions) {
    this.now = opts.now ?? Date.now;
    this.budget = new AccountBudget({ store: opts.store, bytes: opts.accountBytes ?? 64 * 1024 * 1024 });
    this.maxBatch = opts.maxBatch ?? 200;
    this.maxPending = opts.maxPending ?? 5_000;
    this.batch = new BatchedWrites<RenderRecord>(
      // One record per render id: a second record of the same id (never expected) replaces the first.
      (_older, newer) => newer,
      (entries) => this.write(entries.map(([, record]) => record)),
      opts.flushMs ?? RENDER_LOG_FLUSH_MS,
      (err) => {
        // Once per outage, not once a second: the records wait in memory and every flush retries them.
        if (this.failing) return;
        this.failing = true;
        opts.log.error({ err: (err as Error).message }, 'could not write render records; will retry');
      },
    );
    const sweep = () => {
      this.sweep().then(
        (n) => {
          this.budget.reset();
          if (n > 0) opts.log.info({ deleted: n }, 'deleted render records past RENDER_LOG_RETENTION_DAYS');
        },
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
        help: 'Render records dropped: the store could not be written for too long, or refused the record',
        registers: [opts.registry],
      });
    }
  }

  /**
   * Queues one record; never throws and never waits on the store. Its entries are the ones of an entry's
   * shape, within a record's 32 KiB (the rest counted in one `truncated`).
   */
  record(given: RenderRecord): void {
    const record = sized(given);
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

  /** Stops the timers and writes what is pending (before the store closes); says what could not be written. */
  async close(): Promise<void> {
    clearInterval(this.sweepTimer);
    await this.batch.close();
    if (this.batch.size > 0) this.opts.log.error({ records: this.batch.size }, 'render records not written before shutdown');
  }

  /**
   * Writes a batch. When the store refuses it, the records are written one at a time, each account's
   * first record before any account's second: one that cannot be written is logged with its id and
   * dropped, never retried ahead of everybody else's records. When nothing gets through (the first three
   * refused, or every one), the store is taken to be away and the batch waits for the next flush.
   */
  private async write(given: RenderRecord[]): Promise<void> {
    const records = await this.budget.fit(given);
    try {
      await this.opts.store.insertRenderRecords(records);
    } catch (err) {
      let written = 0;
      const refused: Array<{ id: string; accountId: string; err: string }> = [];
      for (const record of inTurns(records)) {
        if (written === 0 && refused.length >= 3) throw err;
        try {
          await this.opts.store.insertRenderRecords([record]);
          written += 1;
        } catch (one) {
          refused.push({ id: record.id, accountId: record.accountId, err: (one as Error).message });
        }
      }
      if (written === 0) throw err;
      for (const r of refused) this.opts.log.error(r, 'could not write a render record; dropped it');
      this.droppedTotal?.inc(refused.length);
    }
    if (!this.failing && this.dropped === 0) return;
    if (this.dropped > 0)
      this.opts.log.warn({ dropped: this.dropped }, 'render log writes again; render records were dropped meanwhile');
    else this.opts.log.info({}, 'render log writes again');
    this.failing = false;
    this.dropped = 0;
  }
}

/**
 * Most characters of an error message a record keeps, whatever produced the message: one that quotes a
 * request or a document's own words can be longer than a 32 KiB record has room for beside its entries.
 */
const MAX_RECORD_ERROR_MESSAGE = 1000;

/** The record as it is kept: entries of an entry's shape only, a bounded error message, and at most 32 KiB of JSON in all. */
function sized(given: RenderRecord): RenderRecord {
  const error = given.error && { ...given.error, message: cutText(given.error.message, MAX_RECORD_ERROR_MESSAGE) };
  const record = { ...given, error, ...(given.assembly ? { assembly: fitParts(given.assembly) } : {}) };
  const checked = storedEntries(JSON.stringify(record.warnings));
  const rest = jsonBytes({ ...record, warnings: [] });
  const warnings = fitEntries(checked, MAX_RECORD_BYTES - rest, 'at most 32 KiB of entries');
  return { ...record, warnings };
}

/** Most bytes of JSON an assembly takes in its record (its parts, stamps, metadata, split): half of it, the other half for entries. */
const MAX_ASSEMBLY_BYTES = MAX_RECORD_BYTES / 2;

/**
 * The first parts that fit in what MAX_ASSEMBLY_BYTES leaves beside the assembly's finishing (itself cut
 * short when recorded, at most about 8 KiB); the count stays whole (a 1,000-part job keeps 150 to 250, by its titles' length).
 */
function fitParts(assembly: RecordAssembly): RecordAssembly {
  const parts: RecordPart[] = [];
  let used = jsonBytes({ ...assembly, parts: [] });
  for (const part of assembly.parts) {
    const size = jsonBytes(part) + 1;
    if (used + size > MAX_ASSEMBLY_BYTES) break;
    parts.push(part);
    used += size;
  }
  return { ...assembly, parts };
}

/** The records, each account's first before any account's second, and so on (in order within an account). */
function inTurns(records: readonly RenderRecord[]): RenderRecord[] {
  const byAccount = new Map<string, RenderRecord[]>();
  for (const r of records) byAccount.set(r.accountId, [...(byAccount.get(r.accountId) ?? []), r]);
  const turns: RenderRecord[] = [];
  for (let i = 0; turns.length < records.length; i++)
    for (const list of byAccount.values()) if (i < list.length) turns.push(list[i]);
  return turns;
}
