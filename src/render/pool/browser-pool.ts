/**
 * The browser pool: one long-lived Chromium with `concurrency` (+1 spare) pre-warmed render slots, a fair bounded
 * queue in front, a wall-clock deadline per render, restart after a crash, recycling after N renders or
 * above a memory threshold, and an ordered shutdown that leaves no Chromium process behind.
 */

import { RenderError } from '../../errors.js';
import type { EgressPolicy } from '../../net/policy.js';
import { countPdfPages } from '../../pdf/index.js';
import { withAbort, withTimeout } from '../../with-timeout.js';
import { BrowserCrashed, type DiscardReason, Instance, InstanceGone } from '../browser/browser-instance.js';
import { launchChromium, processGroupRss } from '../browser/chromium.js';
import type { RenderSlot } from '../browser/slot.js';
import { DEFAULT_IDLE_MAX_MS, type RenderLog, renderInSlot } from '../document/renderer.js';
import type { ReportEntry } from '../report/report.js';
import { ReportCollector } from '../report/report-collector.js';
import type { PrintParams } from '../request/options.js';
import { FairQueue, type RenderPriority } from './fair-queue.js';

/** The logging the pool needs (pino and Fastify loggers fit). */
export interface PoolLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Why Chromium was replaced: it crashed or disconnected, or it was recycled (render count, memory). */
export type RestartReason = 'crash' | 'renders' | 'memory';

/** What the pool reports as it works (the render app turns it into metrics). */
export interface PoolEvents {
  /** A render ended: `outcome` is 'ok' or its error code; `renderS` is null when it never got a turn. */
  rendered(outcome: string, renderS: number | null): void;
  chromiumRestarted(reason: RestartReason): void;
  slotDiscarded(reason: DiscardReason): void;
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
  /** Relaunch Chromium when its process group holds more resident memory than this; 0: never. */
  memoryLimitBytes?: number;
  memoryCheckMs?: number;
  maxRequestsPerRender?: number;
  maxBytesPerRender?: number;
  /** JavaScript heap cap of each renderer, in MiB (0: Chromium's default): a runaway document crashes its own renderer (422). */
  jsHeapMb?: number;
  log?: PoolLog;
  events?: PoolEvents;
  /** Collect each render's report (default true); off only to measure what collecting costs (bench/render.ts). */
  report?: boolean;
}

/** A finished render: the PDF, its page count, and what the document could not get (its report's entries). */
export interface RenderResult {
  pdf: Buffer;
  pages: number;
  warnings: ReportEntry[];
}

/** Longest wait for a free slot (e.g. while Chromium restarts) before the render is refused with 503. */
const SLOT_WAIT_MS = 30_000;
/** Clean slots beyond the concurrency: a render never waits for the previous one's reset or replacement. */
const SPARE_SLOTS = 1;
const noSlot = (): RenderError => new RenderError('OVERLOADED', 'no renderer became available in time; retry shortly', 2);
const shuttingDown = (): RenderError => new RenderError('OVERLOADED', 'the render service is shutting down; retry shortly', 1);
/** Seconds a client waits before trying again while Chromium cannot be started (nginx takes the instance out meanwhile). */
const UNAVAILABLE_RETRY_S = 5;
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
  private current?: Instance;
  private launching?: Promise<Instance>;
  private closing = false;
  private recycling = false;
  private restarting = false;
  /** Why the last launch failed, until one succeeds: renders are refused at once meanwhile. */
  private launchFailure?: string;
  /** Aborted at the drain deadline: every render still running or waiting ends then. */
  private readonly drain = new AbortController();
  private drainDeadline?: number;
  private avgRenderMs = 500;
  /** Chromium launches (recycles) and shutdowns under way: close() waits for them. */
  private readonly settling = new Set<Promise<unknown>>();
  /** Interactive renders holding a turn, and when the last one ended (epoch ms). */
  private interactiveRunning = 0;
  private interactiveEndedAt = 0;
  /** When the last background render ended (epoch ms) and how long its turn lasted. */
  private backgroundEndedAt = 0;
  private backgroundRenderMs = 0;
  private readonly memoryTimer: NodeJS.Timeout;
  private readonly opts: Required<Omit<BrowserPoolOptions, 'executablePath' | 'log' | 'events'>> &
    Pick<BrowserPoolOptions, 'executablePath' | 'log' | 'events'>;

  private constructor(options: BrowserPoolOptions) {
    this.opts = {
      maxRendersPerBrowser: 2000,
      maxRendersPerSlot: 250,
      memoryLimitBytes: 2 * 1024 ** 3,
      memoryCheckMs: 15_000,
      maxRequestsPerRender: 300,
      maxBytesPerRender: 64 * 1024 * 1024,
      jsHeapMb: 1024,
      idleMaxMs: DEFAULT_IDLE_MAX_MS,
      report: true,
      ...options,
    };
    this.queue = new FairQueue(this.opts.concurrency, this.opts.queueLimit, () => {
      const rounds = this.queue.waiting / this.opts.concurrency + 1;
      return (rounds * this.avgRenderMs) / 1000;
    });
    this.memoryTimer = setInterval(() => this.checkMemory(), this.opts.memoryCheckMs).unref();
  }

  /** Called whenever a render ends: a slot may be free for the next job claim. */
  set onRelease(listener: () => void) {
    this.queue.onRelease = listener;
  }

  /** Launches Chromium and warms every slot, so the first render pays for neither. */
  static async start(options: BrowserPoolOptions): Promise<BrowserPool> {
    const pool = new BrowserPool(options);
    try {
      await pool.ensureInstance();
    } catch (err) {
      await pool.close();
      throw err;
    }
    return pool;
  }

  /** Process id of the current Chromium (its process group id), if one runs. */
  get browserPid(): number | undefined {
    return this.current?.launched.pid;
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
    if (this.closing || this.drainDeadline !== undefined) return 'shutting down';
    const instance = this.current;
    if (instance && !instance.dead && instance.launched.browser.connected) return undefined;
    if (this.launchFailure !== undefined) return `chromium cannot be started: ${this.launchFailure}`;
    return this.launching ? 'chromium is starting' : 'chromium is not running';
  }

  /**
   * Renders once it is this account's turn; the render timeout starts when the turn comes. `log` hears what
   * the document got wrong without failing the render (the request's logger, with its render id). Aborting
   * `signal` ends the render at once, whether it waits or runs (its page is closed, its slot freed).
   * Background renders (jobs) get a turn only while no interactive render waits.
   */
  async render(
    accountId: string,
    html: string,
    params: PrintParams,
    signal?: AbortSignal,
    log?: RenderLog,
    priority: RenderPriority = 'interactive',
  ): Promise<RenderResult> {
    let turnAt: number | undefined;
    let outcome = 'ok';
    const { stop, dispose } = linked(signal, this.drain.signal);
    try {
      if (this.closing || (priority === 'background' && this.drainDeadline !== undefined)) throw shuttingDown();
      const release = await this.queue.acquire(accountId, stop, priority);
      turnAt = Date.now();
      if (priority === 'interactive') this.interactiveRunning += 1;
      try {
        return await this.attempt(html, params, stop, turnAt, log);
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
    if (this.closing) return;
    this.closing = true;
    clearInterval(this.memoryTimer);
    this.queue.failAll(shuttingDown());
    const drainUntil = Math.min(this.drainDeadline ?? Number.POSITIVE_INFINITY, Date.now() + this.opts.timeoutMs + 1000);
    while (this.queue.active > 0 && Date.now() < drainUntil) await new Promise((r) => setTimeout(r, 25));
    this.drain.abort(shuttingDown());
    const launching = this.launching?.catch(() => undefined);
    const instance = this.current ?? (await launching);
    if (instance) await this.shutdown(instance, CLOSE_GRACE_MS);
    // A recycle's new Chromium still starting (it shuts itself down on seeing `closing`) and retired ones
    // still closing: none outlives close().
    while (this.settling.size > 0) await Promise.allSettled([...this.settling]);
  }

  /**
   * One render in a slot; when its Chromium stops under it (not the document's fault, as far as one can
   * tell), once more on the next Chromium, with a render timeout of its own. A second crash is 503.
   */
  private async attempt(
    html: string,
    params: PrintParams,
    stop: AbortSignal,
    turnAt: number,
    log?: RenderLog,
    retried = false,
  ): Promise<RenderResult> {
    // Waiting for a slot (a Chromium restart, a slot being replaced) is queue time, not render time.
    const [instance, slot] = await this.takeSlot(turnAt + Math.max(this.opts.timeoutMs, SLOT_WAIT_MS), stop);
    try {
      return await this.runInSlot(instance, slot, html, params, Date.now() + this.opts.timeoutMs, stop, log);
    } catch (err) {
      if (!(err instanceof BrowserCrashed) || retried || this.closing || stop.aborted) throw err;
      this.opts.log?.warn({ chromiumPid: instance.launched.pid }, 'chromium stopped during a render; trying it once more');
      return this.attempt(html, params, stop, Date.now(), log, true);
    }
  }

  private async ensureInstance(): Promise<Instance> {
    if (this.current && !this.current.dead) return this.current;
    this.launching ??= this.launchInstance().then(
      (instance) => {
        this.launching = undefined;
        this.launchFailure = undefined;
        return instance;
      },
      (err: unknown) => {
        this.launching = undefined;
        if (!this.closing) this.launchFailure = (err as Error)?.message?.split('\n')[0] ?? String(err);
        throw err;
      },
    );
    return this.launching;
  }

  private async launchInstance(): Promise<Instance> {
    const heapFlag = this.opts.jsHeapMb > 0 ? [`--js-flags=--max-old-space-size=${this.opts.jsHeapMb}`] : [];
    const launched = await launchChromium(this.opts.executablePath, heapFlag, this.opts.timeoutMs);
    const instance = new Instance(launched, {
      egress: { policy: this.opts.policy, maxRequests: this.opts.maxRequestsPerRender, maxBytes: this.opts.maxBytesPerRender },
      maxRendersPerSlot: this.opts.maxRendersPerSlot,
      closing: () => this.closing,
      onRetiredIdle: (retired) => void this.shutdown(retired),
      onDiscard: (reason) => this.opts.events?.slotDiscarded(reason),
      warn: (obj, msg) => this.opts.log?.warn(obj, msg),
    });
    launched.browser.once('disconnected', () => this.onDisconnected(instance));
    try {
      await Promise.all(Array.from({ length: this.opts.concurrency + SPARE_SLOTS }, () => instance.addSlot()));
    } catch (err) {
      await this.shutdown(instance);
      throw err;
    }
    if (this.closing) {
      await this.shutdown(instance);
      throw new RenderError('OVERLOADED', 'the render service is shutting down; retry shortly', 1);
    }
    this.current = instance;
    this.opts.log?.info({ chromiumPid: launched.pid, slots: this.opts.concurrency + SPARE_SLOTS }, 'chromium ready');
    return instance;
  }

  private onDisconnected(instance: Instance): void {
    const unexpected = !instance.dead && !instance.retiring && !this.closing;
    instance.markDead();
    if (!unexpected) return;
    this.opts.log?.error({ chromiumPid: instance.launched.pid }, 'chromium disconnected; restarting');
    this.opts.events?.chromiumRestarted('crash');
    void this.shutdown(instance);
    if (this.current === instance) this.current = undefined;
    this.restart();
  }

  /** Starts a replacement Chromium, retrying in the background (not ready meanwhile) until one runs. */
  private restart(attempt = 1): void {
    if (this.closing || (this.restarting && attempt === 1)) return;
    this.restarting = true;
    this.ensureInstance().then(
      () => (this.restarting = false),
      (err) => {
        this.opts.log?.error({ err, attempt }, 'chromium restart failed; retrying');
        setTimeout(() => this.restart(attempt + 1), Math.min(30_000, 250 * 2 ** attempt)).unref();
      },
    );
  }

  private async takeSlot(deadline: number, stop: AbortSignal): Promise<[Instance, RenderSlot]> {
    for (;;) {
      if (this.closing) throw shuttingDown();
      // Chromium cannot be started now: say so at once (the restarts go on in the background) rather
      // than hold the request for a launch that is likely to fail again.
      if (this.launchFailure !== undefined && !(this.current && !this.current.dead)) throw this.unavailableError();
      let instance: Instance;
      try {
        instance = await this.withDeadline(this.ensureInstance(), deadline, stop, noSlot);
      } catch (err) {
        if (err instanceof RenderError || stop.aborted) throw err;
        this.opts.log?.error({ err }, 'chromium could not be started');
        this.restart();
        throw this.unavailableError(err);
      }
      const ready = instance.idle.pop();
      if (ready) return [instance, ready];
      try {
        const slot = await this.withDeadline(
          new Promise<RenderSlot>((resolve, reject) => instance.waiters.push({ resolve, reject })),
          deadline,
          stop,
          noSlot,
        );
        return [instance, slot];
      } catch (err) {
        if (!(err instanceof InstanceGone)) throw err;
      }
    }
  }

  private unavailableError(cause?: unknown): RenderError {
    return new RenderError(
      'SERVICE_UNAVAILABLE',
      'the renderer (Chromium) cannot be started; retry shortly',
      UNAVAILABLE_RETRY_S,
      {
        cause: cause ?? this.launchFailure,
      },
    );
  }

  private withDeadline<T>(work: Promise<T>, deadline: number, stop: AbortSignal, expiry?: () => RenderError): Promise<T> {
    return withAbort(
      withTimeout(
        work,
        deadline - Date.now(),
        expiry ?? (() => new RenderError('RENDER_TIMEOUT', `render exceeded ${this.opts.timeoutMs} ms`)),
      ),
      stop,
    );
  }

  private async runInSlot(
    instance: Instance,
    slot: RenderSlot,
    html: string,
    params: PrintParams,
    deadline: number,
    stop: AbortSignal,
    log?: RenderLog,
  ): Promise<RenderResult> {
    instance.busy += 1;
    instance.renders += 1;
    let clean = false;
    const report = this.opts.report ? new ReportCollector(slot.session) : undefined;
    const refusedBefore = slot.egress.refusals.length;
    const work = renderInSlot(slot, html, params, deadline, this.opts.timeoutMs, log, this.opts.idleMaxMs, report);
    work.catch(() => undefined);
    try {
      const pdf = await this.withDeadline(withAbort(withAbort(work, instance.died), slot.crash), deadline, stop);
      clean = true;
      const warnings = report?.finish(slot.egress.refusals.slice(refusedBefore)) ?? [];
      return { pdf, pages: countPdfPages(pdf), warnings };
    } catch (err) {
      report?.finish([]);
      // Canceled or drained: the slot is not clean, so giving it back closes its page (and whatever the
      // document still runs) and a fresh one takes its place.
      if (stop.aborted) throw stop.reason;
      throw this.classify(err, instance, slot);
    } finally {
      instance.busy -= 1;
      instance.giveBack(slot, clean);
      const { maxRendersPerBrowser } = this.opts;
      if (maxRendersPerBrowser > 0 && instance.renders >= maxRendersPerBrowser) this.recycle(instance, 'renders');
    }
  }

  private classify(err: unknown, instance: Instance, slot: RenderSlot): RenderError {
    if (instance.dead || !instance.launched.browser.connected) return new BrowserCrashed({ cause: err });
    if (err instanceof RenderError) return err;
    if (slot.crashed) return new RenderError('RENDER_FAILED', 'the document crashed the renderer', undefined, { cause: err });
    this.opts.log?.error({ err }, 'render failed unexpectedly');
    return new RenderError('INTERNAL_ERROR', 'the render failed unexpectedly', undefined, { cause: err });
  }

  private checkMemory(): void {
    const instance = this.current;
    if (!instance || instance.dead || this.opts.memoryLimitBytes === 0) return;
    const rss = processGroupRss(instance.launched.pid);
    if (rss > this.opts.memoryLimitBytes) this.recycle(instance, 'memory', Math.round(rss / 1048576));
  }

  /**
   * Starts a new Chromium, switches new renders to it, and retires `old` once its renders finish. Only the
   * current one is recycled: a render finishing on a browser already replaced must not recycle its successor.
   */
  private recycle(old: Instance, reason: Exclude<RestartReason, 'crash'>, rssMiB?: number): void {
    if (old !== this.current || this.recycling || this.closing || old.retiring) return;
    this.recycling = true;
    this.opts.log?.info({ chromiumPid: old.launched.pid, reason, rssMiB }, 'recycling chromium');
    this.opts.events?.chromiumRestarted(reason);
    void this.track(
      this.launchInstance()
        .then(() => {
          old.retire();
          if (old.busy === 0) void this.shutdown(old);
        })
        .catch((err) => {
          if (!this.closing) this.opts.log?.error({ err }, 'chromium recycle failed; keeping the current one');
        })
        .finally(() => (this.recycling = false)),
    );
  }

  private shutdown(instance: Instance, graceMs?: number): Promise<void> {
    return this.track(
      instance.shutdown(graceMs).then(() => {
        if (this.current === instance) this.current = undefined;
      }),
    );
  }

  /** Keeps `work` (a launch or a shutdown under way) until it settles, so close() can wait for it. */
  private track<T>(work: Promise<T>): Promise<T> {
    this.settling.add(work);
    work.then(
      () => this.settling.delete(work),
      () => this.settling.delete(work),
    );
    return work;
  }
}
