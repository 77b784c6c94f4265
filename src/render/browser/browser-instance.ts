/**
 * One Chromium of the browser pool and its render slots: the clean ones waiting (idle), every one alive
 * (all), the renders waiting for a slot, and a promise that rejects when it dies so running renders fail
 * at once instead of waiting for puppeteer timeouts. A slot given back after a render is reset and
 * offered again when it stayed clean, otherwise closed and replaced in the background.
 */

import { RenderError } from '../../errors.js';
import type { RenderEgressOptions } from '../../net/render-egress.js';
import { type LaunchedChromium, shutdownChromium } from './chromium.js';
import { closeSlot, createSlot, type RenderSlot, resetSlot } from './slot.js';

/** The message of a render cut short by a browser crash (the pool tries once more on the next browser). */
export const CRASH_MESSAGE = 'the browser stopped during this render; retry the request';

/** A render cut short because its Chromium stopped: not the document's fault, so 503 and worth a retry. */
export class BrowserCrashed extends RenderError {
  constructor(options?: { cause?: unknown }) {
    super('SERVICE_UNAVAILABLE', CRASH_MESSAGE, 2, options);
  }
}

/** Why a slot's context was thrown away instead of being reset for the next render. */
export type DiscardReason = 'state' | 'failure' | 'worn' | 'retiring';

/** How an instance keeps its slots, and what it tells the pool. */
export interface SlotSettings {
  egress: RenderEgressOptions;
  /** Replace a slot's context after this many renders even if it stayed clean. */
  maxRendersPerSlot: number;
  /** At most this long a render waits for a slot being reset while another is idle (0: it takes the idle one). */
  resetWaitMs: number;
  /** True once the pool shuts down: slots given back are closed, not offered. */
  closing: () => boolean;
  /** A retiring instance has no render left and may be shut down. */
  onRetiredIdle: (instance: Instance) => void;
  onDiscard?: (reason: DiscardReason) => void;
  warn?: (obj: object, msg: string) => void;
}

const RESET_TIMEOUT_MS = 5000;
const RETRY_SLOT_MS = 250;
/**
 * How long a render waits for a slot being reset (about 8 ms on the 2-core development machine) before it
 * takes a slot that no render has used lately (Instance.take says why it waits at all).
 */
export const RESET_WAIT_MS = 50;

/** A render waiting for a slot: `resolve` hands it one. */
export interface SlotWaiter {
  resolve: (slot: RenderSlot) => void;
  reject: (err: unknown) => void;
}

/** One launched Chromium with its render slots and the renders running on it. */
export class Instance {
  private readonly idle: RenderSlot[] = [];
  private readonly waiters: SlotWaiter[] = [];
  readonly all = new Set<RenderSlot>();
  /** Slots given back clean and being reset: each is offered again within milliseconds. */
  private resetting = 0;
  private resetWaitTimer?: NodeJS.Timeout;
  busy = 0;
  renders = 0;
  dead = false;
  retiring = false;
  private closed?: Promise<void>;
  /**
   * Aborted (with BrowserCrashed) when this Chromium dies. A signal, not a promise: a render waits on it
   * with a listener it removes again, where racing a promise that lives as long as the browser would
   * leave one reaction per render on it.
   */
  private readonly death = new AbortController();

  constructor(
    readonly launched: LaunchedChromium,
    private readonly settings: SlotSettings,
  ) {}

  /** Aborts when this Chromium dies. */
  get died(): AbortSignal {
    return this.death.signal;
  }

  /** Fails the renders running on this Chromium and sends slot waiters to the next one. */
  markDead(): void {
    if (this.dead) return;
    this.dead = true;
    this.death.abort(new BrowserCrashed());
    for (const w of this.waiters.splice(0)) w.reject(new InstanceGone());
  }

  /**
   * A clean slot for a render, or undefined when the render should wait for one (wait). The slots beyond
   * the concurrency are there for a slot being replaced (a new context costs a renderer process), not for
   * one being reset: every render that took a slot unused since would spread the renders over one
   * renderer process more than the concurrency, and at 2 renders on 2 cores that cost the renderers
   * 1.6–4 ms of CPU a render and 3–4.5 % of the throughput (docs/deploy.md, "Sizing"). So while slots
   * are being reset, one of them is waited for (at most `resetWaitMs`); idle slots beyond them are taken
   * at once.
   */
  take(): RenderSlot | undefined {
    const { resetWaitMs } = this.settings;
    if (this.idle.length > (resetWaitMs > 0 ? this.resetting : 0)) return this.idle.pop();
    if (this.idle.length > 0 && this.resetWaitTimer === undefined) {
      this.resetWaitTimer = setTimeout(() => {
        this.resetWaitTimer = undefined;
        this.serveWaiters(true);
      }, resetWaitMs).unref();
    }
    return undefined;
  }

  /** Waits for the next slot offered; `withdraw` takes the wait back (a render that gave up). */
  wait(waiter: SlotWaiter): void {
    this.waiters.push(waiter);
  }

  /**
   * Takes back the wait of a render that no longer needs a slot (its deadline passed, its client left):
   * a slot offered later goes to the next render instead of to nobody.
   */
  withdraw(waiter: SlotWaiter): void {
    const at = this.waiters.indexOf(waiter);
    if (at >= 0) this.waiters.splice(at, 1);
    this.stopResetWait();
  }

  /** Opens one more slot and offers it. */
  async addSlot(): Promise<void> {
    const slot = await createSlot(this.launched, this.settings.egress);
    this.all.add(slot);
    this.offer(slot);
  }

  /** Takes back a slot after a render: reset and offered again when clean, else replaced. */
  giveBack(slot: RenderSlot, clean: boolean): void {
    if (this.dead) {
      this.all.delete(slot);
      void slot.egress.close();
      return;
    }
    const discard = (reason: DiscardReason): void => {
      this.settings.onDiscard?.(reason);
      void this.dropSlot(slot);
      this.replaceSlot();
    };
    if (!clean) {
      discard('failure');
      return;
    }
    if (this.retiring) {
      discard('retiring');
      return;
    }
    if (slot.renders >= this.settings.maxRendersPerSlot) {
      discard('worn');
      return;
    }
    this.resetting += 1;
    const settle = (then: () => void): void => {
      this.resetting -= 1;
      then();
      this.serveWaiters(false);
    };
    resetSlot(slot, RESET_TIMEOUT_MS).then(
      (ok) => settle(() => (ok ? this.offer(slot) : discard('state'))),
      () => settle(() => discard('failure')),
    );
  }

  /** Stops offering slots: waiters go to the next instance, idle slots are closed. */
  retire(): void {
    this.retiring = true;
    for (const w of this.waiters.splice(0)) w.reject(new InstanceGone());
    for (const slot of this.idle.splice(0)) void this.dropSlot(slot);
  }

  /** Closes every slot's proxy and the whole Chromium process group (once, however often it is asked). */
  shutdown(graceMs?: number): Promise<void> {
    this.closed ??= (async () => {
      this.retiring = true;
      for (const w of this.waiters.splice(0)) w.reject(new InstanceGone());
      this.idle.length = 0;
      await Promise.all([...this.all].map((slot) => slot.egress.close()));
      this.all.clear();
      this.markDead();
      await shutdownChromium(this.launched, graceMs);
    })();
    return this.closed;
  }

  private offer(slot: RenderSlot): void {
    if (this.dead || this.retiring || this.settings.closing()) {
      void this.dropSlot(slot);
      return;
    }
    const waiter = this.waiters.shift();
    if (waiter) waiter.resolve(slot);
    else this.idle.push(slot);
    this.stopResetWait();
  }

  /**
   * Hands idle slots to waiting renders: those beyond the slots being reset, or (`all`, once a render
   * waited `resetWaitMs`) every one.
   */
  private serveWaiters(all: boolean): void {
    while (this.waiters.length > 0 && this.idle.length > (all ? 0 : this.resetting)) {
      this.waiters.shift()?.resolve(this.idle.pop() as RenderSlot);
    }
    this.stopResetWait();
  }

  /** With no render waiting, no wait is to be cut short. */
  private stopResetWait(): void {
    if (this.waiters.length > 0 || this.resetWaitTimer === undefined) return;
    clearTimeout(this.resetWaitTimer);
    this.resetWaitTimer = undefined;
  }

  /** Replaces a slot in the background; a failure is retried once Chromium is known to be alive. */
  private replaceSlot(): void {
    if (this.dead || this.retiring || this.settings.closing()) return;
    this.addSlot().catch((err) => {
      if (this.dead || this.settings.closing()) return;
      this.settings.warn?.({ err }, 'render slot creation failed; retrying');
      setTimeout(() => this.replaceSlot(), RETRY_SLOT_MS).unref();
    });
  }

  private async dropSlot(slot: RenderSlot): Promise<void> {
    this.all.delete(slot);
    await closeSlot(slot);
    if (this.retiring && this.busy === 0) this.settings.onRetiredIdle(this);
  }
}

/** A slot wait on an instance that went away; the render moves to the next instance. */
export class InstanceGone extends Error {}
