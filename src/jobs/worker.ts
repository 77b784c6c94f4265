/**
 * The job worker: claims jobs from the store with a lease, makes them through the render service's
 * browser pool (job-render.ts: a render or an assembly, the same options and error codes as the sync
 * routes), stores the PDF and makes the job final (attempt-settlement.ts). Idle, it waits for a wake-up
 * (a local submit, Redis) or polls the store.
 */
import crypto from 'node:crypto';
import os from 'node:os';
import type { RenderJobRow } from '../store/jobs-queries.js';
import { Released } from './attempt-outcome.js';
import { AttemptSettlement } from './attempt-settlement.js';
import { isAssemblyJob, type JobMakers, type JobResult, makeJob } from './job-render.js';
import { takingTurns } from './job-turns.js';
import { DEFAULT_POLL_MS, HELD_CHECK_MS, type JobWorkerOptions, LAPSED_LOOK_MS } from './worker-options.js';

/** Claims and renders jobs, `concurrency` at a time. */
export class JobWorker {
  /** Names this worker in leases (host, process, random). */
  readonly owner = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;
  private readonly running = new Map<string, AbortController>();
  /**
   * Jobs whose render is under way. A job storing its PDF and becoming final no longer holds a render
   * slot: the next claim and render overlap that bookkeeping (it is why jobs keep up with sync renders).
   */
  private readonly rendering = new Set<string>();
  private renderEnded: () => void = () => {};
  private readonly inFlight = new Set<Promise<void>>();
  private stopping = false;
  private loopDone: Promise<void> = Promise.resolve();
  private wakeUp: (() => void) | undefined;
  private readonly now: () => number;
  private lapsedLookAt = Number.NEGATIVE_INFINITY;

  private readonly makers: JobMakers;
  private readonly settlement: AttemptSettlement;

  constructor(private readonly opts: JobWorkerOptions) {
    this.now = opts.now ?? Date.now;
    // Every render of a job (an assembly's parts too) takes one of the worker's turns, fair across accounts,
    // so jobs hold at most the worker's own slots, never the ones kept for sync renders.
    const slots = Math.max(1, opts.concurrency);
    this.makers = {
      pool: takingTurns(opts.pool, slots),
      assembly: opts.assembly,
      width: slots,
      results: opts.results,
      secrets: opts.secrets,
      meter: opts.meter,
    };
    this.settlement = new AttemptSettlement(opts, this.owner, this.now);
  }

  /** Jobs rendering now. */
  get active(): number {
    return this.running.size;
  }

  /** Starts claiming. */
  start(): void {
    this.loopDone = this.loop();
    this.heldTimer = setInterval(() => this.checkHeld(), HELD_CHECK_MS).unref();
  }

  private heldTimer: NodeJS.Timeout | undefined;
  private checkingHeld = false;

  /** The job was canceled (here or on another instance): its render stops now and its slot is freed. */
  cancel(jobId: string): void {
    this.running.get(jobId)?.abort(new Released('canceled'));
  }

  /** Stops a render whose job the store no longer gives this worker (canceled, or its lease lapsed and was taken). */
  private checkHeld(): void {
    if (this.running.size === 0 || this.checkingHeld) return;
    this.checkingHeld = true;
    const ids = [...this.running.keys()];
    this.opts.store
      .heldJobs(this.owner, ids)
      .then(
        (held) => {
          const still = new Set(held);
          for (const id of ids) if (!still.has(id)) this.running.get(id)?.abort(new Released('lease lost'));
        },
        (err) => this.opts.log.warn({ err: (err as Error).message }, 'could not check the render jobs being rendered'),
      )
      .finally(() => (this.checkingHeld = false));
  }

  /** Ends an idle wait at once (a job was submitted); when not idle, the next wait is skipped. */
  wake(): void {
    if (this.wakeUp) this.wakeUp();
    else this.woken = true;
  }

  /** A wake-up came while the worker was busy claiming: a job may have been queued after its last look. */
  private woken = false;

  /**
   * Stops claiming, lets the jobs in flight finish for up to `drainMs`, then gives the rest back to
   * the queue (lease cleared, attempt not counted) so another worker takes them at once.
   */
  async stop(drainMs: number): Promise<void> {
    this.stopClaiming();
    await this.loopDone;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, drainMs);
    });
    await Promise.race([Promise.allSettled([...this.inFlight]), deadline]);
    clearTimeout(timer);
    for (const controller of this.running.values()) controller.abort(new Released('worker stopping'));
    await Promise.allSettled([...this.inFlight]);
    clearInterval(this.heldTimer);
  }

  /** Claims nothing more from now on (shutdown has begun); the jobs in flight go on. */
  stopClaiming(): void {
    if (this.stopping) return;
    this.stopping = true;
    // A loop waiting for a free slot stops waiting.
    this.renderEnded();
    this.wake();
  }

  private idle(ms: number): Promise<void> {
    if (this.woken || this.stopping) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        if (self.wakeUp === done) self.wakeUp = undefined;
        resolve();
      }
      this.wakeUp = done;
    });
  }

  private async loop(): Promise<void> {
    const pollMs = this.opts.pollMs ?? DEFAULT_POLL_MS;
    while (!this.stopping) {
      // Jobs still storing their PDF are bounded too (a stalled result store must not pile up PDFs).
      if (this.rendering.size >= this.opts.concurrency || this.running.size >= 2 * this.opts.concurrency) {
        const renderEnded = new Promise<void>((resolve) => {
          this.renderEnded = resolve;
        });
        // Only promises that settle soon: racing one that lives as long as the worker would leave a
        // reaction on it per wait (a leak of one closure chain per job).
        await Promise.race([...this.inFlight, renderEnded]);
        continue;
      }
      // An interactive render waits for a slot: it goes first; the pool wakes this loop when a render ends.
      if (this.opts.mayClaim && !this.opts.mayClaim()) {
        await this.idle(pollMs);
        continue;
      }
      // Beside interactive renders, jobs are paced (render/pool/browser-pool.ts backgroundPauseMs).
      const pause = this.opts.claimPauseMs?.() ?? 0;
      if (pause > 0) {
        await this.idle(Math.min(pause, pollMs));
        continue;
      }
      let row: RenderJobRow | undefined;
      try {
        const now = this.now();
        const lapsed = now - this.lapsedLookAt >= LAPSED_LOOK_MS;
        if (lapsed) this.lapsedLookAt = now;
        row = await this.opts.store.claimJob(this.owner, now, {
          leaseMs: this.opts.leaseMs,
          maxAttempts: this.opts.maxAttempts,
          lapsed,
        });
      } catch (err) {
        this.opts.log.error({ err: (err as Error).message }, 'could not claim a render job; retrying');
        await this.idle(pollMs);
        continue;
      }
      if (!row) {
        await this.idle(pollMs);
        continue;
      }
      // Shutdown began while the claim was under way: the job goes straight back, its attempt uncounted.
      if (this.stopping) {
        await this.opts.store.releaseJob(row.id, this.owner).catch(() => false);
        break;
      }
      const job = row;
      const task = this.run(job).catch((err) => this.opts.log.error({ err, jobId: job.id }, 'render job bookkeeping failed'));
      this.inFlight.add(task);
      void task.finally(() => this.inFlight.delete(task));
      // The pool said it is full: leave the rest of the queue to other workers for a moment.
      if (this.settlement.pauseClaims) {
        this.settlement.pauseClaims = false;
        await this.idle(pollMs);
      }
    }
  }

  private async run(row: RenderJobRow): Promise<void> {
    const { store, log } = this.opts;
    const controller = new AbortController();
    this.running.set(row.id, controller);
    const renew = setInterval(
      () => {
        store.renewJobLease(row.id, this.owner, this.now() + this.opts.leaseMs).then(
          (held) => {
            // Canceled, or taken by another worker after our lease lapsed: stop rendering it.
            if (!held) controller.abort(new Released('lease lost'));
          },
          (err) => log.warn({ err: (err as Error).message, jobId: row.id }, 'could not renew a render job lease'),
        );
      },
      Math.max(100, Math.floor(this.opts.leaseMs / 3)),
    );
    // An assembly holds no claim slot of its own: its parts take turns like renders, so the worker goes on
    // claiming, and another account's job gets the next turn (job-turns.ts). running.size still bounds them.
    if (!isAssemblyJob(row)) this.rendering.add(row.id);
    const endRender = () => {
      if (this.rendering.delete(row.id)) this.renderEnded();
    };
    const startedAt = this.now();
    let printed: JobResult | undefined;
    try {
      printed = await makeJob(row, this.makers, controller.signal).finally(endRender);
      await this.settlement.settleSuccess(row, startedAt, printed);
    } catch (err) {
      await this.settlement.settleFailure(row, err, controller.signal, startedAt, printed);
    } finally {
      endRender();
      clearInterval(renew);
      this.running.delete(row.id);
    }
  }
}
