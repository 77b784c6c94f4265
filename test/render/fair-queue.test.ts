import { describe, expect, it } from 'vitest';
import { RenderError } from '../../src/errors.js';
import { FairQueue } from '../../src/render/pool/fair-queue.js';

describe('FairQueue', () => {
  it('serves waiting accounts in turn: one account’s burst does not starve another', async () => {
    const queue = new FairQueue(1, 100);
    const order: string[] = [];
    const first = await queue.acquire('burst');
    const waits = [
      ...Array.from({ length: 5 }, (_, i) => ['burst', `burst-${i}`]),
      ['single', 'single-0'],
      ['other', 'other-0'],
    ].map(([account, label]) =>
      queue.acquire(account).then((release) => {
        order.push(label);
        release();
      }),
    );
    first();
    await Promise.all(waits);
    expect(order).toEqual(['burst-0', 'single-0', 'other-0', 'burst-1', 'burst-2', 'burst-3', 'burst-4']);
  });

  it('refuses with OVERLOADED and Retry-After once `limit` renders wait', async () => {
    const queue = new FairQueue(1, 2, () => 2.2);
    const running = await queue.acquire('a');
    const waiting = [queue.acquire('a'), queue.acquire('b')];
    const refused = await queue.acquire('c').then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(RenderError);
    expect(refused).toMatchObject({ code: 'OVERLOADED', status: 503, retryAfterS: 3 });
    expect(queue.waiting).toBe(2);
    running();
    (await waiting[0])();
    (await waiting[1])();
    expect(queue.active).toBe(0);
  });

  it('a waiter whose client went away gives up its place', async () => {
    const queue = new FairQueue(1, 5);
    const running = await queue.acquire('a');
    const gone = new AbortController();
    const abandoned = queue.acquire('a', { signal: gone.signal }).catch((err: unknown) => err);
    const kept = queue.acquire('b');
    gone.abort(new Error('client closed'));
    expect(await abandoned).toMatchObject({ message: 'client closed' });
    expect(queue.waiting).toBe(1);
    running();
    (await kept)();
    expect(queue.active).toBe(0);
  });

  it('serves an interactive render before every background one, whatever their order of arrival', async () => {
    const queue = new FairQueue(1, 1);
    const order: string[] = [];
    const first = await queue.acquire('jobs', { priority: 'background' });
    const take = (account: string, label: string, priority: 'interactive' | 'background') =>
      queue.acquire(account, { priority }).then((release) => {
        order.push(label);
        release();
      });
    const waits = [take('jobs', 'job-1', 'background'), take('jobs', 'job-2', 'background'), take('web', 'sync', 'interactive')];
    // Background waiters do not count against the limit: the one interactive place is still free.
    expect(queue.waiting).toBe(3);
    expect(queue.waitingInteractive).toBe(1);
    first();
    await Promise.all(waits);
    expect(order).toEqual(['sync', 'job-1', 'job-2']);
  });
});
