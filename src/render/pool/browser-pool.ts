/**
 * The browser pool: admission and pacing in front of one supervised Chromium (chromium-supervisor.ts) with
 * `concurrency` (+1 spare) pre-warmed render slots. A fair bounded queue gives the turns, a wall-clock
 * deadline bounds each render (render-attempt.ts), jobs are paced beside interactive renders, and shutdown
 * drains and then ends what still waits or runs.
 */

import { setMaxListeners } from 'node:events';
import { RenderError } from '../../errors.js';
import type { EgressPolicy } from '../../net/policy.js';
import type { ServiceLog } from '../../service-log.js';
import { RESET_WAIT_MS } from '../browser/browser-instance.js';
import { DEFAULT_IDLE_MAX_MS, type RenderWarningLog } from '../document/renderer.js';
import type { PrintParams } from '../request/options.js';
import { type BrowserIdentity, ChromiumSupervisor, type SupervisionEvents, shuttingDown } from './chromium-supervisor.js';
import { FairQueue, type RenderPriority } from './fair-queue.js';
import { RenderAttempts, type RenderResult } from './render-attempt.js';

/** What the pool reports as it works (the render app turns it into metrics). */
export interface PoolEvents extends SupervisionEvents {
  /** A render ended: `outcome` is 'ok' or its error code; `renderS` is null when it never got a turn. */
  rendered(outcome: string, renderS: number | null): void;
}

/** How the pool is sized and bounded. */
export interface BrowserPoolOptions {
  policy: EgressPolicy;
  concurrency: number;
  queueLimit: number;
  timeoutMs: number;
  /** After the load event, how long requests still pending are waited for before printing regardless. */
  idleMaxMs?: number;
  executablePath?: string;
  /** Relaunch Chromium after this many renders (slow leaks in long-lived browsers); 0: never. */
  maxRendersPerBrowser?: number;
  /** Replace a slot's context after this many renders even if it stayed clean. */
  maxRendersPerSlot?: number;
  /**
   * At most this long a render waits for a slot being reset rather than take the spare one (default
   * RESET_WAIT_MS; 0 takes the spare at once, which bench/render-tuning.ts compares).
   */
  resetWaitMs?: number;
  /** Relaunch Chromium when its process group holds more resident memory than this; 0: never. */
  memoryLimitBytes?: number;
  memoryCheckMs?: number;
  maxRequestsPerRender?: number;
  maxBytesPerRender?: number;
  /** JavaScript heap cap of each renderer, in MiB (0: Chromium's default): a runaway document crashes its own renderer (422). */
  jsHeapMb?: number;
  /** Chromium switches after the service's own (a feature named in `--enable-features` is no longer disabled): bench/render-tuning.ts compares switches with it. */
  extraArgs?: string[];
  log?: ServiceLog;
  events?: PoolEvents;
  /** Collect each render's report (default true); off only to measure what collecting costs (bench/render.ts). */
  report?: boolean;
}

/** How one render is asked for: what ends it, where it warns, and whose turn it takes. */
export interface PoolRenderOptions {
  /** Aborting it ends the render at once, whether it waits or runs (its page is closed, its slot freed). */
  signal?: AbortSignal;
  /** Hears what the document got wrong without failing the render (the request's logger, with its render id). */
  log?: RenderWarningLog;
  /** Background renders (jobs) get a turn only while no interactive render waits (default interactive). */
  priority?: RenderPriority;
}

/**
 * Clean slots beyond the concurrency: a render never waits for a slot's replacement (a new context), and
 * for a slot's reset at most RESET_WAIT_MS.
 */
const SPARE_SLOTS = 1;
/**
 * An interactive render that ended this recently still means interactive traffic (its client's next request
 * is usually on its way): jobs stay paced. A job beside every sync render on a 2-core machine made the sync
 * render 1.6–1.8× slower, whichever process or CPU priority the job ran at (the cores' shared caches and
 * the job's several processes); paced to half the time, 1.3–1.4× (bench/jobs-interactive.ts).
 */
const INTERACTIVE_RECENT_MS = 1000;
/** Chromium's own grace to exit on close before its process group is killed. */
const CLOSE_GRACE_MS = 1000;

/**
 * A signal that aborts with the first of `own` (the caller's) and `drain` (the pool's); `dispose` unhooks it
 * from both, so the pool's long-lived drain signal does not collect one listener per render.
 */
function linked(own: AbortSignal | undefined, drain: AbortSignal): { stop: AbortSignal; dispose: () => void } {
  if (!own) return { stop: drain, dispose: () => {} };
  const controller = new AbortController();
  const fromOwn = () => controller.abort(own.reason);
  const fromDrain = () => controller.abort(drain.reason);
  if (own.aborted) fromOwn();
  else if (drain.aborted) fromDrain();
  own.addEventListener('abort', fromOwn, { once: true });
  drain.addEventListener('abort', fromDrain, { once: true });
  return {
    stop: controller.signal,
    dispose: () => {
      own.removeEventListener('abort', fromOwn);
      drain.removeEventListener('abort', fromDrain);
    },
  };
}

/** One Chromium, its render slots and the queue in front of them. */
export class BrowserPool {
  private readonly queue: FairQueue;
  private readonly supervisor: ChromiumSupervisor;
  private readonly attempts: RenderAttempts;
  /**
   * Aborted at the drain deadline: every render still running or waiting ends then. Each render holds one
   * listener on it until it ends (`linked`), so a busy pool has as many as renders in flight; no limit, or
   * Node prints a false memory-leak warning past ten.
   */
  private readonly drain = new AbortController();
  private drainDeadline?: number;
  private avgRenderMs = 500;
  /** Interactive renders holding a turn, and when the last one ended (epoch ms). */
  private interactiveRunning = 0;
  private interactiveEndedAt = 0;
  /** When the last background render ended (epoch ms) and how long its turn lasted. */
  private backgroundEndedAt = 0;
  private backgroundRenderMs = 0;
  private readonly opts: Required<Omit<BrowserPoolOptions, 'executablePath' | 'log' | 'events'>> &
    Pick<BrowserPoolOptions, 'executablePath' | 'log' | 'events'>;

  private constructor(options: BrowserPoolOptions) {
    setMaxListeners(0, this.drain.signal);
    this.opts = {
      maxRendersPerBrowser: 2000,
      maxRendersPerSlot: 250,
      resetWaitMs: RESET_WAIT_MS,
      memoryLimitBytes: 2 * 1024 ** 3,
      memoryCheckMs: 15_000,
      maxRequestsPerRender: 300,
      maxBytesPerRender: 64 * 1024 * 1024,
      jsHeapMb: 1024,
      extraArgs: [],
      idleMaxMs: DEFAULT_IDLE_MAX_MS,
      report: true,
      ...options,
    };
    this.queue = new FairQueue(this.opts.concurrency, this.opts.queueLimit, () => {
      const rounds = this.queue.waiting / this.opts.concurrency + 1;
      return (rounds * this.avgRenderMs) / 1000;
    });
    this.supervisor = new ChromiumSupervisor({ ...this.opts, slots: this.opts.concurrency + SPARE_SLOTS });
    this.attempts = new RenderAttempts(this.supervisor, this.opts);
  }

  /** Called whenever a render ends: a slot may be free for the next job claim. */
  set onRelease(listener: () => void) {
    this.queue.onRelease = listener;
  }

  /** Launches Chromium and warms every slot, so the first render pays for neither. */
  static async start(options: BrowserPoolOptions): Promise<BrowserPool> {
    const pool = new BrowserPool(options);
    try {
      await pool.supervisor.ensureInstance();
    } catch (err) {
      await pool.close();
      throw err;
    }
    return pool;
  }

  /** Process id of the current Chromium (its process group id), if one runs. */
  get browserPid(): number | undefined {
    return this.supervisor.browserPid;
  }

  /** The browser renders run on (the headless shell or full Chromium), once one was launched. */
  get browser(): BrowserIdentity | undefined {
    return this.supervisor.browser;
  }

  /** Renders running now (each holds a turn of the queue). */
  get inFlight(): number {
    return this.queue.active;
  }

  /** Renders waiting for a turn. */
  get queueDepth(): number {
    return this.queue.waiting;
  }

  /** Interactive renders waiting for a turn: while there is one, no job is claimed. */
  get interactiveWaiting(): number {
    return this.queue.waitingInteractive;
  }

  /**
   * How long the next job claim should wait, in ms (0: claim now). While interactive renders are being
   * served, a background render is followed by a pause as long as itself, so jobs take at most half of
   * the time beside them; with no interactive render lately, jobs run back to back.
   */
  get backgroundPauseMs(): number {
    const now = Date.now();
    if (this.interactiveRunning === 0 && now - this.interactiveEndedAt > INTERACTIVE_RECENT_MS) return 0;
    return Math.max(0, this.backgroundEndedAt + this.backgroundRenderMs - now);
  }

  /** Renders that may run at once. */
  get concurrency(): number {
    return this.opts.concurrency;
  }

  /** Why renders cannot be served right now (no Chromium connected), or undefined when they can. */
  get unavailable(): string | undefined {
    if (this.supervisor.closing || this.drainDeadline !== undefined) return 'shutting down';
    return this.supervisor.unavailable;
  }

  /** Renders once it is this account's turn; the render timeout starts when the turn comes. */
  async render(accountId: string, html: string, params: PrintParams, options: PoolRenderOptions = {}): Promise<RenderResult> {
    const { signal, log, priority = 'interactive' } = options;
    let turnAt: number | undefined;
    let outcome = 'ok';
    const { stop, dispose } = linked(signal, this.drain.signal);
    try {
      if (this.supervisor.closing || (priority === 'background' && this.drainDeadline !== undefined)) throw shuttingDown();
      const release = await this.queue.acquire(accountId, { signal: stop, priority });
      turnAt = Date.now();
      if (priority === 'interactive') this.interactiveRunning += 1;
      try {
        return await this.attempts.attempt({ html, params, stop, log }, turnAt);
      } finally {
        const ended = Date.now();
        if (priority === 'interactive') {
          this.interactiveRunning -= 1;
          this.interactiveEndedAt = ended;
        } else {
          this.backgroundEndedAt = ended;
          this.backgroundRenderMs = ended - turnAt;
        }
        release();
        this.avgRenderMs = this.avgRenderMs * 0.8 + (Date.now() - turnAt) * 0.2;
      }
    } catch (err) {
      outcome = err instanceof RenderError ? err.code : 'INTERNAL_ERROR';
      throw err;
    } finally {
      dispose();
      this.opts.events?.rendered(outcome, turnAt === undefined ? null : (Date.now() - turnAt) / 1000);
    }
  }

  /**
   * Shutdown has begun: background renders waiting for a turn are refused now (their jobs go back to the
   * queue), the others go on; at `deadline` whatever still waits or runs ends with 503 OVERLOADED, so the
   * process exits within the render timeout of its signal.
   */
  drainBy(deadline: number): void {
    if (this.drainDeadline !== undefined) return;
    this.drainDeadline = deadline;
    this.queue.failAll(shuttingDown(), ['background']);
    setTimeout(() => this.drain.abort(shuttingDown()), Math.max(0, deadline - Date.now())).unref();
  }

  /** Stops accepting renders, lets running ones finish (bounded), closes Chromium with its whole process group. */
  async close(): Promise<void> {
    if (this.supervisor.closing) return;
    this.supervisor.stopping();
    this.queue.failAll(shuttingDown());
    const drainUntil = Math.min(this.drainDeadline ?? Number.POSITIVE_INFINITY, Date.now() + this.opts.timeoutMs + 1000);
    while (this.queue.active > 0 && Date.now() < drainUntil) await new Promise((r) => setTimeout(r, 25));
    this.drain.abort(shuttingDown());
    await this.supervisor.close(CLOSE_GRACE_MS);
  }
}
