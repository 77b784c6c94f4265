/**
 * The render turns of a worker's jobs: at most the worker's job slots render at once, and a turn goes
 * round-robin across accounts (render/pool's fair queue). Every render a job makes takes one, a render
 * job's one render and each HTML part of an assembly job alike, so an assembly's parts wait their turn
 * like renders: another account's one-line job, claimed beside a 50-part assembly, gets the next turn
 * that ends rather than the turn after the last part.
 */
import { type BrowserPool, FairQueue } from '../render/index.js';

type Render = BrowserPool['render'];

/** The pool's render behind the worker's turns. */
export function takingTurns(pool: Pick<BrowserPool, 'render'>, slots: number): Pick<BrowserPool, 'render'> {
  // Jobs never wait in this queue for long (the worker claims only what its slots can take), so no bound.
  const turns = new FairQueue(Math.max(1, slots), Number.MAX_SAFE_INTEGER);
  const render: Render = async (accountId, html, params, options = {}) => {
    const release = await turns.acquire(accountId, { signal: options.signal });
    try {
      return await pool.render(accountId, html, params, options);
    } finally {
      release();
    }
  };
  return { render };
}
