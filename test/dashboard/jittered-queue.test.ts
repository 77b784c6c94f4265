import { afterEach, describe, expect, it, vi } from 'vitest';
import { JitteredQueue } from '../../src/dashboard/jittered-queue.js';

describe('JitteredQueue', () => {
  afterEach(() => vi.useRealTimers());

  it('runs each job once, after its own delay within the jitter range', async () => {
    vi.useFakeTimers();
    const ran: Array<[string, number]> = [];
    const draws = [0, 1, 0.5];
    const queue = new JitteredQueue<string>(
      async (job) => void ran.push([job, Date.now()]),
      { minMs: 250, maxMs: 3000 },
      () => draws.shift() ?? 0,
    );
    const start = Date.now();
    for (const job of ['a', 'b', 'c']) queue.push(job);
    await vi.advanceTimersByTimeAsync(249);
    expect(ran).toEqual([]);
    await vi.advanceTimersByTimeAsync(3000);
    expect(ran.map(([job, at]) => [job, at - start])).toEqual([
      ['a', 250],
      ['c', 1625],
      ['b', 3000],
    ]);
    expect(queue.size).toBe(0);
  });

  it('runs what is still waiting when closed, and a failing job stops nothing', async () => {
    const ran: string[] = [];
    const queue = new JitteredQueue<string>(
      async (job) => {
        if (job === 'bad') throw new Error('smtp down');
        ran.push(job);
      },
      { minMs: 60_000, maxMs: 60_000 },
    );
    queue.push('bad');
    queue.push('mail');
    expect(queue.size).toBe(2);
    await queue.close();
    expect(ran).toEqual(['mail']);
    expect(queue.size).toBe(0);
  });
});
