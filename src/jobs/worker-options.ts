/**
 * What a job worker is given, and the intervals it keeps: the idle poll, the check that its jobs are
 * still its own, the look for lapsed leases.
 */
import type { RenderRecorder } from '../render/index.js';
import type { ServiceLog } from '../service-log.js';
import type { JobFileStore } from '../store/job-file-queries.js';
import type { JobLeaseStore } from '../store/job-lease-queries.js';
import type { JobOutcome } from './attempt-outcome.js';
import type { JobMakers } from './job-render.js';
import type { ResultStore } from './results/result-store.js';

/** What the worker needs. */
export interface JobWorkerOptions {
  store: JobLeaseStore & Pick<JobFileStore, 'clearJobUploads'>;
  results: ResultStore;
  pool: JobMakers['pool'];
  /** What assembly jobs are made with (besides the pool). */
  assembly?: JobMakers['assembly'];
  /** Jobs rendering at once (0: none; the process serves the API alone). */
  concurrency: number;
  /** Whether a claim may be made now: false while an interactive render waits for a slot (interactive first). */
  mayClaim?: () => boolean;
  /** How long the next claim waits (ms; 0: now), asked when `mayClaim` allows one. */
  claimPauseMs?: () => number;
  leaseMs: number;
  maxAttempts: number;
  retentionMs: number;
  log: ServiceLog;
  /** Longest idle wait between two looks at the store (Redis or a local submit wake it sooner). */
  pollMs?: number;
  /** Each attempt's outcome, with whether the job has a webhook (a final one makes its event due). */
  onOutcome?: (outcome: JobOutcome, job: { webhook: boolean }) => void;
  now?: () => number;
  /** Where each job's final attempt is reported (the render log); default: nowhere. */
  recorder?: RenderRecorder;
  /** The server's key, which opens an assembly job's sealed `protect` passwords. */
  secrets?: JobMakers['secrets'];
  /** Counts an assembly job's parts against the account's limit as they start. */
  meter?: JobMakers['meter'];
}

/**
 * Idle poll of the store: without Redis, a job queued by another process waits half of this on
 * average before a worker sees it; one cheap claim query per interval per idle process.
 */
export const DEFAULT_POLL_MS = 250;

/**
 * How often a worker with jobs running asks the store whether they are still its own: a job canceled
 * through any instance stops rendering within this (Redis, where set, tells it sooner).
 */
export const HELD_CHECK_MS = 500;

/**
 * How often a claim also looks for jobs whose worker died (a lapsed lease). Those are rare, and the
 * look is two statements: made on every claim, they were two of a job's thirteen store round trips,
 * each a context switch on the cores that render. A lapsed job still goes before queued ones, at most
 * this much later.
 */
export const LAPSED_LOOK_MS = 1000;
