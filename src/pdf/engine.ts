/**
 * The one face of the work on bytes a customer sent — PDFs to merge, encrypt, sign or count, PKCS#12
 * uploads, Factur-X XML — for the rest of `src/`: `run(op, args)` runs an operation of engine/ops.ts in
 * a worker process with a deadline and a memory bound, so the event loop that serves every account never
 * waits on it. An overrun ends the worker and rejects with PdfWorkLimitError, whose message names the
 * part and the limit; an operation's own refusal (a damaged part, a wrong password) is PdfWorkError of
 * the kind it was thrown as.
 */
import type { Config } from '../config.js';
import type { OpArgs, OpName, OpResult } from './engine/ops.js';
import { type Overrun, type PdfWorkLimits, WorkerPool } from './engine/worker-pool.js';

export type { OpArgs, OpName, OpResult } from './engine/ops.js';
export type { PdfWorkLimits } from './engine/worker-pool.js';

/** What each operation is doing, as a limit's message says it. */
const DOING: Record<OpName, string> = {
  assemble: 'reading the PDF',
  protect: 'encrypting the PDF',
  sign: 'signing the PDF',
  'read-pkcs12': 'reading the PKCS#12 file',
  'examine-invoice': 'checking the XML',
  'keep-pages': 'selecting the pages',
  'split-pages': 'splitting the assembly',
  'page-boxes': 'reading the page sizes',
  'overlay-stamps': 'laying the stamps on the pages',
  'document-metadata': 'writing the metadata',
  'count-pages': 'reading the PDF',
};

/** The limits when the configuration gives none: the defaults of PDF_WORKERS, PDF_WORK_TIMEOUT_MS, PDF_WORK_MAX_MB. */
export const DEFAULT_PDF_WORK_LIMITS: PdfWorkLimits = { workers: 2, timeoutMs: 5000, maxMemoryMb: 1024 };

/** Work on a customer's bytes ended by its deadline or its memory bound; the message names the part and the limit. */
export class PdfWorkLimitError extends Error {
  override name = 'PdfWorkLimitError';
  constructor(
    readonly limit: 'time' | 'memory',
    /** The part or field the work was on (`parts[2]`, `pkcs12`). */
    readonly label: string,
    message: string,
  ) {
    super(message);
  }
}

/** An operation's own error (a part it cannot read, a wrong password): `kind` is the class it was thrown as. */
export class PdfWorkError extends Error {
  override name = 'PdfWorkError';
  constructor(
    readonly kind: string,
    message: string,
    /** The error's own fields (a part's `label` and `problem`, …). */
    readonly fields: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** How one operation is run. */
export interface RunOptions {
  /** Who the work is for, as errors name it (`parts[2]`, `pkcs12`); the part being read when the operation says. */
  label: string;
  /** A longer deadline for a larger input: `times` × PDF_WORK_TIMEOUT_MS, the message saying `per`. */
  scale?: { times: number; per: string };
  /** Handlers of the operation's call backs (signing's `timestamp`). */
  calls?: Record<string, (arg: never) => Promise<unknown>>;
  /** Told how long the operation itself took in the worker: the rest of the wait is the hop (the bench's split). */
  worked?: (workMs: number) => void;
}

const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(1))} s`;

/** Runs untrusted-bytes work in killable workers. */
export class PdfEngine {
  private pool: WorkerPool;

  constructor(readonly limits: PdfWorkLimits = DEFAULT_PDF_WORK_LIMITS) {
    this.pool = new WorkerPool(limits);
  }

  /** Runs `op` on `args` in a worker: its result, or PdfWorkError / PdfWorkLimitError. */
  run<K extends OpName>(op: K, args: OpArgs<K>, opts: RunOptions): Promise<OpResult<K>> {
    const times = Math.max(1, opts.scale?.times ?? 1);
    const timeoutMs = this.limits.timeoutMs * times;
    const variable = (name: string) => (times > 1 && opts.scale ? `${name} ${opts.scale.per}` : name);
    const overrun = (o: Overrun): PdfWorkLimitError => {
      const label = o.at ?? opts.label;
      const doing = op === 'assemble' && o.at === null ? 'merging the parts' : DOING[op];
      return o.limit === 'time'
        ? new PdfWorkLimitError(
            'time',
            label,
            `${label}: ${doing} took longer than ${seconds(timeoutMs)} (${variable('PDF_WORK_TIMEOUT_MS')})`,
          )
        : new PdfWorkLimitError(
            'memory',
            label,
            `${label}: ${doing} needed more than ${this.limits.maxMemoryMb} MiB (PDF_WORK_MAX_MB)`,
          );
    };
    return new Promise((resolve, reject) => {
      this.pool.submit({
        op,
        args,
        timeoutMs,
        calls: (opts.calls ?? {}) as Record<string, (arg: unknown) => Promise<unknown>>,
        resolve: (value, workMs) => {
          opts.worked?.(workMs);
          resolve(value as OpResult<K>);
        },
        reject: (reason) => {
          if ('overrun' in reason) reject(overrun(reason.overrun));
          else if ('error' in reason) reject(new PdfWorkError(reason.error.kind, reason.error.message, reason.error.fields));
          else reject(new Error(`${opts.label}: ${DOING[op]} did not finish: ${reason.lost}`));
        },
      });
    });
  }

  /** Starts the workers now (a service that will need them), so the first operation does not wait for one. */
  warm(): void {
    this.pool.warm();
  }

  /** The worker processes alive now. */
  get pids(): number[] {
    return this.pool.pids;
  }

  /** Ends the workers (the ordered shutdown's step after the services drained). */
  async close(): Promise<void> {
    const closing = this.pool;
    this.pool = new WorkerPool(this.limits);
    await closing.close();
  }
}

let shared: PdfEngine | undefined;

/** The process's engine, started with `limits` (a later call with other limits replaces it for new work). */
export function configurePdfEngine(limits: PdfWorkLimits): PdfEngine {
  const same =
    shared &&
    shared.limits.workers === limits.workers &&
    shared.limits.timeoutMs === limits.timeoutMs &&
    shared.limits.maxMemoryMb === limits.maxMemoryMb;
  if (!same) {
    void shared?.close();
    shared = new PdfEngine(limits);
  }
  return shared as PdfEngine;
}

/** The process's engine in the limits the configuration sets (PDF_WORKERS, PDF_WORK_TIMEOUT_MS, PDF_WORK_MAX_MB). */
export function configurePdfEngineFrom(config: Pick<Config, 'pdfWorkers' | 'pdfWorkTimeoutMs' | 'pdfWorkMaxMb'>): PdfEngine {
  return configurePdfEngine({
    workers: config.pdfWorkers,
    timeoutMs: config.pdfWorkTimeoutMs,
    maxMemoryMb: config.pdfWorkMaxMb,
  });
}

/** The process's engine (with the default limits when nothing configured it). */
export function pdfEngine(): PdfEngine {
  shared ??= new PdfEngine();
  return shared;
}

/** Ends the process's workers; work asked for afterwards starts new ones. */
export async function stopPdfEngine(): Promise<void> {
  await shared?.close();
}
