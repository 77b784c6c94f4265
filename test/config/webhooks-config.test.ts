import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { nextRetryDelay } from '../../src/jobs/webhook-schedule.js';

describe('WEBHOOK_RETRY_SCALE', () => {
  it('is 1 by default (the schedule as documented) and takes a fraction', () => {
    expect(loadConfig({}).webhookRetryScale).toBe(1);
    expect(loadConfig({ WEBHOOK_RETRY_SCALE: '0.001' }).webhookRetryScale).toBe(0.001);
    expect(loadConfig({ WEBHOOK_RETRY_SCALE: '0' }).webhookRetryScale).toBe(0);
  });

  it('refuses anything but a number from 0 to 1, naming the variable', () => {
    for (const raw of ['2', '-1', 'fast', '1e-3', ''])
      if (raw === '') expect(loadConfig({ WEBHOOK_RETRY_SCALE: raw }).webhookRetryScale).toBe(1);
      else
        expect(() => loadConfig({ WEBHOOK_RETRY_SCALE: raw })).toThrow(
          `WEBHOOK_RETRY_SCALE: "${raw}" is not a number from 0 to 1`,
        );
  });
});

describe('webhook retry schedule', () => {
  it('waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h after the failures, then gives up (8 attempts, about a day)', () => {
    const waits = [1, 2, 3, 4, 5, 6, 7].map((n) => nextRetryDelay(n));
    expect(waits).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    expect(nextRetryDelay(8)).toBeNull();
    const total = (waits as number[]).reduce((a, b) => a + b, 0);
    expect(total / 3_600_000).toBeCloseTo(27.6, 1);
    expect(nextRetryDelay(1, 0.001)).toBe(5);
  });
});
