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
  /** True once the pool shuts down: slots given back are closed, not offered. */
  closing: () => boolean;
  /** A retiring instance has no render left and may be shut down. */
  onRetiredIdle: (instance: Instance) => void;
  onDiscard?: (reason: DiscardReason) => void;
  warn?: (obj: object, msg: string) => void;
}

const RESET_TIMEOUT_MS = 5000;
const RETRY_SLOT_MS = 250;

/** One launched Chromium with its render slots and the renders running on it. */
export class Instance {
  readonly idle: RenderSlot[] = [];
  readonly waiters: Array<{ resolve: (slot: RenderSlot) => void; reject: (err: unknown) => void }> = [];
  readonly all = new Set<RenderSlot>();
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
    resetSlot(slot, RESET_TIMEOUT_MS).then(
      (ok) => (ok ? this.offer(slot) : discard('state')),
      () => discard('failure'),
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
