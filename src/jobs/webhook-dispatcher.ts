/**
 * The webhook dispatcher: takes due events from the outbox columns of render_jobs (the queue marks a job
 * `pending` in the same statement that makes it final, so no event is lost to a crash), signs and posts
 * them through the egress policy, records every attempt, and schedules retries for about a day.
 *
 * Attempts run side by side (a hanging receiver costs one slot for at most the 10 s deadline), each
 * under a lease so several processes share the outbox and a crashed process's events are taken again
 * when its lease lapses. A duplicate after a crash carries the same `webhook-id`.
 *
 * One tenant cannot slow another: the store hands out due events round-robin across accounts and never
 * more than `perAccount` in flight for one account, so an account whose receivers hang holds at most two
 * slots and every other account's first attempt waits only for a free slot.
 */
import type { Dispatcher } from 'undici';
import { newId } from '../ids.js';
import type { EgressPolicy } from '../net/policy.js';
import type { SecretBox } from '../secrets/sealing.js';
import type { WebhookDueJob, WebhookOutboxStore, WebhookStore } from '../store/webhook-queries.js';
import { toJobObject } from './job-object.js';
import { deliverWebhook } from './webhook-delivery.js';
import type { WebhookMetrics } from './webhook-metrics.js';
import { nextRetryDelay } from './webhook-schedule.js';
import { WebhookSecrets } from './webhook-secrets.js';
import { webhookBody, webhookHeaders, webhookMessageId } from './webhook-signing.js';

/** What the dispatcher needs. */
export interface WebhookDispatcherOptions {
  store: WebhookStore & WebhookOutboxStore;
  /** The server's key, which the accounts' signing secrets are sealed with (undefined: the server has none). */
  secrets: SecretBox | undefined;
  policy: EgressPolicy;
  /** The pinned (SSRF-safe) agent of src/net. */
  agent: Dispatcher;
  /** The render service's public address: the job object's `pdf.url` is made absolute with it. */
  publicBaseUrl: string;
  log: { warn(obj: object, msg: string): void };
  metrics?: WebhookMetrics;
  /** Pause between looks at the outbox while nothing is due (default 1 s). */
  pollMs?: number;
  /** Attempts in flight at once (default 8). */
  concurrency?: number;
  /** Attempts in flight at once for one account, over every process (default 2). */
  perAccount?: number;
  /** Multiplies the retry schedule (WEBHOOK_RETRY_SCALE, default 1). */
  retryScale?: number;
  /** Deadline of one attempt (default 10 s). */
  timeoutMs?: number;
  now?: () => number;
}

/** A running dispatcher. */
export interface WebhookDispatcher {
  /** Looks at the outbox now instead of at the next poll (a job just finished). */
  wake(): void;
  /** Stops claiming and waits for the attempts in flight (each bounded by its deadline). */
  stop(): Promise<void>;
}

/** Attempts in flight at once for one account (over every process). */
export const WEBHOOKS_IN_FLIGHT_PER_ACCOUNT = 2;

/** How long delivery attempts are kept. */
export const DELIVERY_RETENTION_MS = 7 * 86_400_000;
const PURGE_EVERY_MS = 3_600_000;

/** Starts the delivery loop. */
export function startWebhookDispatcher(opts: WebhookDispatcherOptions): WebhookDispatcher {
  const now = opts.now ?? Date.now;
  const pollMs = opts.pollMs ?? 1000;
  const concurrency = opts.concurrency ?? 8;
  const perAccount = opts.perAccount ?? WEBHOOKS_IN_FLIGHT_PER_ACCOUNT;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  // Long enough for one attempt and its bookkeeping; a lapsed lease means the process died mid-attempt.
  const leaseMs = timeoutMs + 50_000;
  const secrets = new WebhookSecrets(opts.store, opts.secrets, now);
  const inFlight = new Set<Promise<void>>();
  let running = true;
  let wakeUp: (() => void) | null = null;
  // A wake-up that arrives while the loop is claiming (not pausing) is kept for the next pause.
  let woken = false;
  let lastPurge = 0;

  const wake = (): void => {
    const w = wakeUp;
    wakeUp = null;
    if (w) w();
    else woken = true;
  };

  const attempt = async (job: WebhookDueJob, claimedAt: number): Promise<void> => {
    const at = now();
    const settle = (outcome: Parameters<typeof opts.store.settleWebhook>[1]) =>
      opts.store.settleWebhook(job.id, outcome, claimedAt);
    // Only jobs with a URL are ever marked pending; a row without one has nothing to deliver.
    if (job.webhook_url === null) {
      await settle({ state: 'exhausted', attempts: job.webhook_attempts, nextAt: null });
      return;
    }
    const number = Number(job.webhook_attempts) + 1;
    const webhookId = webhookMessageId(job.id);
    const type = job.status === 'succeeded' ? 'job.succeeded' : 'job.failed';
    // The event's time is the job's end, so every attempt of one event carries the same body.
    const eventAt = new Date(Number(job.finished_at ?? at));
    const body = webhookBody(type, eventAt, toJobObject(job, opts.publicBaseUrl, at));
    // After a rotation the replaced secret signs too, for a day, so receivers switch without a gap.
    const signing = await secrets.signing(job.account_id);
    const headers = webhookHeaders(signing, webhookId, Math.floor(at / 1000), body);
    const result = await deliverWebhook({
      policy: opts.policy,
      agent: opts.agent,
      url: job.webhook_url,
      headers,
      body,
      timeoutMs,
    });
    await opts.store.insertWebhookDelivery({
      id: newId('whd'),
      jobId: job.id,
      accountId: job.account_id,
      webhookId,
      attempt: number,
      statusCode: result.statusCode,
      error: result.error,
      durationMs: result.durationMs,
      createdAt: at,
    });
    if (result.delivered) {
      await settle({ state: 'delivered', attempts: number, nextAt: null });
      opts.metrics?.('delivered');
      return;
    }
    const delay = nextRetryDelay(number, opts.retryScale ?? 1);
    if (delay === null) {
      await settle({ state: 'exhausted', attempts: number, nextAt: null });
      opts.metrics?.('exhausted');
    } else {
      await settle({ state: 'pending', attempts: number, nextAt: now() + delay });
      opts.metrics?.('failed');
    }
  };

  const launch = (job: WebhookDueJob, claimedAt: number): void => {
    const p = attempt(job, claimedAt)
      .catch((err: unknown) => {
        // The lease lapses and the event is tried again; nothing is lost.
        opts.log.warn({ err, jobId: job.id }, 'webhook attempt could not be recorded; it will be retried');
      })
      .finally(() => {
        inFlight.delete(p);
        wake();
      });
    inFlight.add(p);
  };

  const pause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      if (woken) {
        woken = false;
        resolve();
        return;
      }
      const timer = setTimeout(() => {
        wakeUp = null;
        resolve();
      }, ms);
      wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const loop = async (): Promise<void> => {
    while (running) {
      let claimed = 0;
      try {
        const free = concurrency - inFlight.size;
        if (free > 0) {
          const at = now();
          const jobs = await opts.store.claimDueWebhooks(at, at + leaseMs, free, perAccount);
          claimed = jobs.length;
          for (const job of jobs) launch(job, at);
        }
        if (now() - lastPurge > PURGE_EVERY_MS) {
          lastPurge = now();
          await opts.store.purgeWebhookDeliveries(lastPurge - DELIVERY_RETENTION_MS);
        }
      } catch (err) {
        opts.log.warn({ err }, 'webhook outbox unavailable; trying again');
      }
      if (!running) break;
      // A full batch means more may be due: look again as soon as a slot is free.
      if (claimed === 0 || inFlight.size >= concurrency) await pause(pollMs);
    }
  };
  const looping = loop();

  return {
    wake,
    async stop() {
      running = false;
      wake();
      await looping;
      await Promise.allSettled([...inFlight]);
    },
  };
}
