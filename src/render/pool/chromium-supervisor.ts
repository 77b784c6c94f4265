/**
 * Chromium supervision: one long-lived Chromium with its pre-warmed slots, restarted after a crash (retrying
 * in the background), recycled after N renders or above a memory threshold, and shut down with its whole
 * process group, so that no Chromium outlives the pool.
 */

import { RenderError } from '../../errors.js';
import type { EgressPolicy } from '../../net/policy.js';
import type { ServiceLog } from '../../service-log.js';
import { withAbort, withTimeout } from '../../with-timeout.js';
import { type DiscardReason, Instance } from '../browser/browser-instance.js';
import { launchChromium, processGroupRss } from '../browser/chromium.js';
import type { BrowserBuild } from '../browser/chromium-executable.js';

/** The browser renders run on, as the start-up log and `GET /v1/ready` name it. */
export interface BrowserIdentity {
  build: BrowserBuild;
  executable: string;
  version: string;
}

/** Why Chromium was replaced: it crashed or disconnected, or it was recycled (render count, memory). */
export type RestartReason = 'crash' | 'renders' | 'memory';

/** What the supervisor reports as it works (the render app turns it into metrics). */
export interface SupervisionEvents {
  chromiumRestarted(reason: RestartReason): void;
  slotDiscarded(reason: DiscardReason): void;
}

/** How the supervised Chromium is started, sized and recycled. */
export interface SupervisorOptions {
  policy: EgressPolicy;
  executablePath?: string;
  /** Slots warmed in each Chromium. */
  slots: number;
  /** The render timeout: also Chromium's launch timeout. */
  timeoutMs: number;
  jsHeapMb: number;
  /** Chromium switches after the service's own. */
  extraArgs: string[];
  maxRendersPerBrowser: number;
  maxRendersPerSlot: number;
  resetWaitMs: number;
  memoryLimitBytes: number;
  memoryCheckMs: number;
  maxRequestsPerRender: number;
  maxBytesPerRender: number;
  log?: ServiceLog;
  events?: SupervisionEvents;
}

/** The 503 of a render that asks for a Chromium while the pool shuts down. */
export const shuttingDown = (): RenderError =>
  new RenderError('OVERLOADED', 'the render service is shutting down; retry shortly', 1);
/** The 503 of a render that found no slot in time. */
export const noSlot = (): RenderError => new RenderError('OVERLOADED', 'no renderer became available in time; retry shortly', 2);
/** Seconds a client waits before trying again while Chromium cannot be started (nginx takes the instance out meanwhile). */
const UNAVAILABLE_RETRY_S = 5;

/** Starts, watches, restarts and recycles the pool's Chromium. */
export class ChromiumSupervisor {
  private current?: Instance;
  private launching?: Promise<Instance>;
  private closingNow = false;
  private recycling = false;
  private restarting = false;
  /** Why the last launch failed, until one succeeds: renders are refused at once meanwhile. */
  private launchFailure?: string;
  /** Chromium launches (recycles) and shutdowns under way: close() waits for them. */
  private readonly settling = new Set<Promise<unknown>>();
  private readonly memoryTimer: NodeJS.Timeout;
  private lastBrowser: BrowserIdentity | undefined;

  constructor(private readonly opts: SupervisorOptions) {
    this.memoryTimer = setInterval(() => this.checkMemory(), opts.memoryCheckMs).unref();
  }

  /** Shutdown has begun: no launch, restart or recycle from now on. */
  get closing(): boolean {
    return this.closingNow;
  }

  /** Process id of the current Chromium (its process group id), if one runs. */
  get browserPid(): number | undefined {
    return this.current?.launched.pid;
  }

  /** Which browser the last launched Chromium is (build, binary, version); undefined before the first launch. */
  get browser(): BrowserIdentity | undefined {
    return this.lastBrowser;
  }

  /** Why no Chromium is connected, or undefined when one is. */
  get unavailable(): string | undefined {
    const instance = this.current;
    if (instance && !instance.dead && instance.launched.browser.connected) return undefined;
    if (this.launchFailure !== undefined) return `chromium cannot be started: ${this.launchFailure}`;
    return this.launching !== undefined ? 'chromium is starting' : 'chromium is not running';
  }

  /** The running Chromium, launched (with its slots warmed) if none runs. */
  async ensureInstance(): Promise<Instance> {
    if (this.current && !this.current.dead) return this.current;
    this.launching ??= this.launchInstance().then(
      (instance) => {
        this.launching = undefined;
        this.launchFailure = undefined;
        return instance;
      },
      (err: unknown) => {
        this.launching = undefined;
        if (!this.closingNow) this.launchFailure = (err as Error)?.message?.split('\n')[0] ?? String(err);
        throw err;
      },
    );
    return this.launching;
  }

  /**
   * The running Chromium for a render, by `deadline` (503 OVERLOADED after it). While Chromium cannot be
   * started, 503 SERVICE_UNAVAILABLE at once (the restarts go on in the background) rather than hold the
   * request for a launch that is likely to fail again.
   */
  async instanceBy(deadline: number, stop: AbortSignal): Promise<Instance> {
    if (this.closingNow) throw shuttingDown();
    if (this.launchFailure !== undefined && !(this.current && !this.current.dead)) throw this.unavailableError();
    try {
      return await withAbort(withTimeout(this.ensureInstance(), deadline - Date.now(), noSlot), stop);
    } catch (err) {
      if (err instanceof RenderError || stop.aborted) throw err;
      this.opts.log?.error({ err }, 'chromium could not be started');
      this.restart();
      throw this.unavailableError(err);
    }
  }

  /** A render on `instance` ended: past the renders a Chromium may serve, it is recycled. */
  rendered(instance: Instance): void {
    const { maxRendersPerBrowser } = this.opts;
    if (maxRendersPerBrowser > 0 && instance.renders >= maxRendersPerBrowser) this.recycle(instance, 'renders');
  }

  /** Shutdown begins: nothing is launched, restarted or recycled any more (renders may still run). */
  stopping(): void {
    this.closingNow = true;
    clearInterval(this.memoryTimer);
  }

  /** Closes Chromium with its whole process group, and waits for every launch and shutdown under way. */
  async close(graceMs: number): Promise<void> {
    this.stopping();
    const launching = this.launching?.catch(() => undefined);
    const instance = this.current ?? (await launching);
    if (instance) await this.shutdown(instance, graceMs);
    // A recycle's new Chromium still starting (it shuts itself down on seeing `closing`) and retired ones
    // still closing: none outlives close().
    while (this.settling.size > 0) await Promise.allSettled([...this.settling]);
  }

  private async launchInstance(): Promise<Instance> {
    const heapFlag = this.opts.jsHeapMb > 0 ? [`--js-flags=--max-old-space-size=${this.opts.jsHeapMb}`] : [];
    const launched = await launchChromium(this.opts.executablePath, [...heapFlag, ...this.opts.extraArgs], this.opts.timeoutMs);
    const instance = new Instance(launched, {
      egress: { policy: this.opts.policy, maxRequests: this.opts.maxRequestsPerRender, maxBytes: this.opts.maxBytesPerRender },
      maxRendersPerSlot: this.opts.maxRendersPerSlot,
      resetWaitMs: this.opts.resetWaitMs,
      closing: () => this.closingNow,
      onRetiredIdle: (retired) => void this.shutdown(retired),
      onDiscard: (reason) => this.opts.events?.slotDiscarded(reason),
      warn: (obj, msg) => this.opts.log?.warn(obj, msg),
    });
    launched.browser.once('disconnected', () => this.onDisconnected(instance));
    try {
      await Promise.all(Array.from({ length: this.opts.slots }, () => instance.addSlot()));
    } catch (err) {
      await this.shutdown(instance);
      throw err;
    }
    if (this.closingNow) {
      await this.shutdown(instance);
      throw shuttingDown();
    }
    this.current = instance;
    this.lastBrowser = { build: launched.build, executable: launched.executable, version: launched.version };
    this.opts.log?.info({ chromiumPid: launched.pid, slots: this.opts.slots, browser: this.lastBrowser }, 'chromium ready');
    return instance;
  }

  private onDisconnected(instance: Instance): void {
    const unexpected = !instance.dead && !instance.retiring && !this.closingNow;
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
    if (this.closingNow || (this.restarting && attempt === 1)) return;
    this.restarting = true;
    this.ensureInstance().then(
      () => (this.restarting = false),
      (err) => {
        this.opts.log?.error({ err, attempt }, 'chromium restart failed; retrying');
        setTimeout(() => this.restart(attempt + 1), Math.min(30_000, 250 * 2 ** attempt)).unref();
      },
    );
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
    if (old !== this.current || this.recycling || this.closingNow || old.retiring) return;
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
          if (!this.closingNow) this.opts.log?.error({ err }, 'chromium recycle failed; keeping the current one');
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
