/**
 * The render jobs of one process, composed: the queue the routes use, the worker over the browser
 * pool, the Redis wake-up, the retention sweep and the metrics. The render service and the
 * render-worker service start one and stop it before the pool closes.
 */
import type { Redis } from 'ioredis';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { AssemblyDeps } from '../assemble/index.js';
import { type Config, jobSlots } from '../config.js';
import { createPinnedAgent } from '../net/pinned-agent.js';
import type { EgressPolicy } from '../net/policy.js';
import type { RateLimiter } from '../ratelimit/limiter.js';
import type { BrowserPool, RenderRecorder } from '../render/index.js';
import type { ServerKey } from '../secrets/server-key.js';
import type { ServiceLog } from '../service-log.js';
import type { Store } from '../store/store.js';
import type { JobOutcome } from './attempt-outcome.js';
import { partMeter } from './part-meter.js';
import { JobQueue } from './queue.js';
import type { ResultStore } from './results/result-store.js';
import { startWebhookDispatcher, type WebhookDispatcher } from './webhook-dispatcher.js';
import { createWebhookMetrics } from './webhook-metrics.js';
import { JobWorker } from './worker.js';

/** The Redis channel a submit publishes on, so idle workers on any machine look at the store at once. */
export const WAKE_CHANNEL = 'pageworks:render-jobs:wake';
/** The Redis channel a cancel publishes a running job's id on, so the worker rendering it stops at once. */
export const CANCEL_CHANNEL = 'pageworks:render-jobs:cancel';
/** How often expired PDFs are looked for. */
const SWEEP_MS = 60_000;

/** The shared services the jobs runtime uses (app/core.ts builds them). */
export interface JobsCore {
  config: Config;
  store: Store;
  /** Where job PDFs are kept. */
  results: ResultStore;
  /** Present when REDIS_URL is set: wakes and cancels reach every instance. */
  redis?: Redis;
  /**
   * The server's key: a queued job's `protect` passwords and the accounts' webhook signing secrets are sealed
   * with it; without it such jobs are refused and no signing secret is made.
   */
  secrets?: ServerKey;
  /** The render limit's counter: an assembly job's parts beyond those charged at submit count on it as they start. */
  limiter: RateLimiter;
}

/** What assembly jobs are made with besides the pool (render/'s pool is the runtime's). */
export type JobAssemblyDeps = Omit<AssemblyDeps, 'pool'>;

/** What a jobs runtime is built from. */
export interface JobsRuntimeOptions {
  /** What assembly jobs need; without it, an assembly job fails INTERNAL_ERROR. */
  assembly?: JobAssemblyDeps;
  core: JobsCore;
  /** The browser pool; with `interactiveWaiting`, jobs are claimed only while no interactive render waits, paced by `backgroundPauseMs`. */
  pool: Pick<BrowserPool, 'render'> & Partial<Pick<BrowserPool, 'interactiveWaiting' | 'onRelease' | 'backgroundPauseMs'>>;
  /** Jobs this process renders at once (default: config.ts jobSlots for `render`; 0 serves the API alone). */
  jobSlots?: number;
  /** The service's Prometheus registry (render or render-worker). */
  registry: Registry;
  log: ServiceLog;
  /** False: the worker does not claim (an API-only test, or a process that must not render). */
  startWorker?: boolean;
  /** The render egress policy: webhooks are delivered through it (with the worker). */
  policy?: EgressPolicy;
  /** Longest idle wait of the worker before it looks at the store again (default 250 ms). */
  pollMs?: number;
  now?: () => number;
  /** Where each job's final attempt is reported (the render log); default: nowhere. */
  recorder?: RenderRecorder;
}

/** The queue, the worker and their timers, started and stopped together. */
export class JobsRuntime {
  readonly queue: JobQueue;
  readonly worker: JobWorker;
  private readonly sweepTimer: NodeJS.Timeout;
  private subscriber: Redis | undefined;
  private webhooks: WebhookDispatcher | undefined;
  private workerStarted = false;

  private constructor(private readonly opts: JobsRuntimeOptions) {
    const { core, log } = opts;
    const { config, store } = core;
    const outcomes = new Counter({
      name: 'pageworks_render_jobs_total',
      help: 'Render job attempts by outcome: succeeded, failed (final), retried, released (given back on shutdown)',
      labelNames: ['outcome'] as const,
      registers: [opts.registry],
    });
    this.queue = new JobQueue({
      store,
      results: core.results,
      maxQueuedPerAccount: config.renderJobsMaxQueued,
      maxQueuedHtmlBytes: config.renderJobsMaxQueuedMb * 1024 * 1024,
      retentionMs: config.renderJobRetentionH * 3600_000,
      now: opts.now,
      onSubmitted: () => this.announce(),
      onCanceled: (jobId) => this.canceled(jobId),
      secrets: core.secrets?.box,
    });
    this.worker = new JobWorker({
      store,
      results: core.results,
      pool: opts.pool,
      assembly: opts.assembly,
      concurrency: opts.jobSlots ?? jobSlots(config, 'render'),
      mayClaim: () => (opts.pool.interactiveWaiting ?? 0) === 0,
      claimPauseMs: () => opts.pool.backgroundPauseMs ?? 0,
      leaseMs: config.renderJobLeaseMs,
      maxAttempts: config.renderJobAttempts,
      retentionMs: config.renderJobRetentionH * 3600_000,
      log,
      pollMs: opts.pollMs,
      now: opts.now,
      recorder: opts.recorder,
      secrets: core.secrets?.box,
      meter: partMeter({ limiter: core.limiter, store, config }),
      onOutcome: (outcome: JobOutcome, job: { webhook: boolean }) => {
        outcomes.inc({ outcome });
        // A final job's webhook is due now: look at the outbox without waiting for the next poll (a
        // look is a transaction of four statements; a job without a webhook gives it nothing to find).
        if (job.webhook && (outcome === 'succeeded' || outcome === 'failed')) this.webhooks?.wake();
      },
    });
    // A render ended: a slot may be free, so a worker waiting for one looks at the queue now.
    if ('onRelease' in opts.pool) opts.pool.onRelease = () => this.worker.wake();
    this.registerQueueGauges(opts.registry);
    const sweep = () => {
      this.queue.sweepExpired().then(
        (n) => n > 0 && log.info({ deleted: n }, 'deleted expired job PDFs'),
        (err) => log.error({ err: (err as Error).message }, 'could not delete expired job PDFs; will retry'),
      );
      this.queue.sweepUploads().then(
        (n) => n > 0 && log.info({ jobs: n }, 'deleted the uploaded files of finished jobs'),
        (err) => log.error({ err: (err as Error).message }, 'could not delete the uploaded files of finished jobs; will retry'),
      );
      this.queue.sweepFinishedRows().then(
        (n) => n > 0 && log.info({ deleted: n }, 'deleted the rows of jobs finished RENDER_JOB_RETENTION_H + 7 days ago'),
        (err) => log.error({ err: (err as Error).message }, 'could not delete old job rows; will retry'),
      );
    };
    this.sweepTimer = setInterval(sweep, SWEEP_MS).unref();
    sweep();
    if (core.redis) this.subscribe(core.redis);
    if (opts.startWorker !== false) this.startWorker();
    // Webhook delivery (the outbox columns the worker sets when a job becomes final) starts here too,
    // so every render process delivers; its stop belongs in stop() before the worker's.
  }

  /** Builds and starts the runtime (the worker claims at once unless `startWorker` is false). */
  static start(opts: JobsRuntimeOptions): JobsRuntime {
    return new JobsRuntime(opts);
  }

  /** Starts the worker (once). */
  startWorker(): void {
    if (this.workerStarted) return;
    this.workerStarted = true;
    this.worker.start();
    const { policy, core } = this.opts;
    if (policy) {
      const agent = createPinnedAgent({ connectTimeoutMs: 10_000 });
      const dispatcher = startWebhookDispatcher({
        store: core.store,
        secrets: core.secrets?.box,
        policy,
        agent,
        publicBaseUrl: core.config.renderPublicUrl,
        retryScale: core.config.webhookRetryScale,
        metrics: createWebhookMetrics(this.opts.registry),
        log: this.opts.log,
        now: this.opts.now,
      });
      // Stopping twice (a test stops the runtime, then the app closes) waits for the same stop.
      let stopping: Promise<void> | undefined;
      const stop = () => {
        stopping ??= dispatcher.stop().finally(() => agent.close());
        return stopping;
      };
      this.webhooks = { wake: dispatcher.wake, stop };
    }
  }

  /** Shutdown has begun: nothing more is claimed, the jobs in flight go on. */
  stopClaiming(): void {
    this.worker.stopClaiming();
  }

  /** Stops the sweep and the wake-ups, then the worker (finishing or releasing what is in flight). */
  async stop(drainMs = this.opts.core.config.renderTimeoutMs): Promise<void> {
    clearInterval(this.sweepTimer);
    this.subscriber?.disconnect();
    if (this.workerStarted) await this.worker.stop(drainMs);
    // After the worker: the events of the jobs it just finished go out (or stay pending for another process).
    await this.webhooks?.stop();
  }

  /** A running job was canceled: stop its render here, and on whichever instance runs it through Redis. */
  private canceled(jobId: string): void {
    this.worker.cancel(jobId);
    // Without Redis (or if the message is lost) the worker's own check of the store notices within HELD_CHECK_MS.
    this.opts.core.redis?.publish(CANCEL_CHANNEL, jobId).catch(() => {});
  }

  /** A job was queued: wake this process's worker now and every other one through Redis. */
  private announce(): void {
    this.worker.wake();
    // Losing the message costs at most one poll interval: workers poll the store anyway.
    this.opts.core.redis?.publish(WAKE_CHANNEL, '1').catch(() => {});
  }

  private subscribe(redis: Redis): void {
    const subscriber = redis.duplicate();
    this.subscriber = subscriber;
    subscriber.on('error', () => {});
    subscriber.on('message', (channel: string, message: string) => {
      if (channel === CANCEL_CHANNEL) this.worker.cancel(message);
      else this.worker.wake();
    });
    // Subscribed again after every reconnect (the client starts with no offline queue).
    subscriber.on('ready', () => {
      subscriber.subscribe(WAKE_CHANNEL, CANCEL_CHANNEL).catch(() => {});
    });
    subscriber.connect().catch(() => {});
  }

  private registerQueueGauges(registry: Registry): void {
    const { store } = this.opts.core;
    const now = this.opts.now ?? Date.now;
    // One query per scrape feeds both gauges.
    let stats: { at: number; value: Promise<{ queued: number; oldestCreatedAt: number | null }> } | undefined;
    const current = () => {
      if (!stats || Date.now() - stats.at > 500) stats = { at: Date.now(), value: store.jobQueueStats() };
      return stats.value;
    };
    new Gauge({
      name: 'pageworks_render_jobs_queued',
      help: 'Render jobs waiting for a worker, all accounts',
      registers: [registry],
      async collect() {
        // A store outage must not break the whole scrape: the gauge keeps its last value.
        const s = await current().catch(() => undefined);
        if (s) this.set(s.queued);
      },
    });
    new Gauge({
      name: 'pageworks_render_jobs_oldest_queued_age_seconds',
      help: 'Age of the oldest queued render job (0 when none is queued)',
      registers: [registry],
      async collect() {
        const s = await current().catch(() => undefined);
        if (s) this.set(s.oldestCreatedAt === null ? 0 : Math.max(0, (now() - s.oldestCreatedAt) / 1000));
      },
    });
  }
}
