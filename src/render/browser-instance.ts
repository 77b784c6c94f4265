/**
 * One Chromium of the browser pool: its slots (idle, all), the renders waiting for a slot, and a promise
 * that rejects when it dies so running renders fail at once instead of waiting for puppeteer timeouts.
 */
import { RenderError } from '../errors.js';
import type { LaunchedChromium } from './chromium.js';
import type { RenderSlot } from './slot.js';

/** The message of a render cut short by a browser crash (a 500, the next render gets a new browser). */
export const CRASH_MESSAGE = 'the browser stopped during this render; retry the request';

/** One launched Chromium with its render slots and the renders running on it. */
export class Instance {
  readonly idle: RenderSlot[] = [];
  readonly waiters: Array<{ resolve: (slot: RenderSlot) => void; reject: (err: unknown) => void }> = [];
  readonly all = new Set<RenderSlot>();
  busy = 0;
  renders = 0;
  dead = false;
  retiring = false;
  closed?: Promise<void>;
  readonly died: Promise<never>;
  private kill!: (err: unknown) => void;

  constructor(readonly launched: LaunchedChromium) {
    this.died = new Promise<never>((_, reject) => (this.kill = reject));
    this.died.catch(() => undefined);
  }

  /** Fails the renders running on this Chromium and sends slot waiters to the next one. */
  markDead(): void {
    if (this.dead) return;
    this.dead = true;
    this.kill(new RenderError('INTERNAL_ERROR', CRASH_MESSAGE));
    for (const w of this.waiters.splice(0)) w.reject(new InstanceGone());
  }
}

/** A slot wait on an instance that went away; the render moves to the next instance. */
export class InstanceGone extends Error {}

