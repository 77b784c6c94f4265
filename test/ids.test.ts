import { describe, expect, it } from 'vitest';
import { isId, newId, newTimeOrderedId, utcDay } from '../src/ids.js';

describe('utcDay', () => {
  it('changes exactly at UTC midnight, in either direction of time', () => {
    const midnight = Date.UTC(2026, 10, 24);
    expect(utcDay(midnight - 1)).toBe('2026-11-23');
    expect(utcDay(midnight)).toBe('2026-11-24');
    expect(utcDay(midnight - 1)).toBe('2026-11-23');
    expect(utcDay(midnight + 86_400_000 - 1)).toBe('2026-11-24');
    expect(utcDay(midnight + 86_400_000)).toBe('2026-11-25');
  });

  it('agrees with Date for times before 1970 and fractional times', () => {
    for (const ms of [-1, -0.5, 0, 0.5, -86_400_000, -86_400_000.5, 86_399_999.5, Date.UTC(1969, 11, 31, 23, 59, 59, 999)]) {
      expect(utcDay(ms)).toBe(new Date(ms).toISOString().slice(0, 10));
    }
  });
});

describe('newTimeOrderedId', () => {
  it('sorts as made, within one millisecond and across a clock that goes back, with 32 hex digits', () => {
    const t = Date.UTC(2026, 10, 25, 12);
    const ids = [t, t, t, t + 1, t + 1, t - 5, t + 2].map((ms) => newTimeOrderedId('job', ms));
    for (const id of ids) expect(id).toMatch(/^job_[0-9a-f]{32}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0].slice(4, 16)).toBe(t.toString(16).padStart(12, '0'));
  });

  it('keeps 80 unpredictable bits between milliseconds', () => {
    const a = newTimeOrderedId('job', 1_000_000_000_000);
    const b = newTimeOrderedId('job', 1_000_000_000_001);
    expect(a.slice(16)).not.toBe(b.slice(16));
  });

  it('ids made in one millisecond are not one apart: the tail moves by a random step, still in order', () => {
    const t = Date.UTC(2026, 10, 25, 13);
    const ids = Array.from({ length: 200 }, () => newTimeOrderedId('job', t));
    expect([...ids].sort()).toEqual(ids);
    const tails = ids.map((id) => BigInt(`0x${id.slice(16)}`));
    const steps = tails.slice(1).map((tail, i) => tail - (tails[i] as bigint));
    for (const step of steps) expect(step).toBeGreaterThan(0n);
    // With steps drawn from 1..2^32, 199 steps of one are out of the question, and so are 199 equal steps.
    expect(steps.filter((s) => s === 1n).length).toBeLessThan(3);
    expect(new Set(steps).size).toBeGreaterThan(190);
  });
});

describe('isId', () => {
  it('takes the ids the code makes and nothing else (a NUL, a longer tail, another prefix)', () => {
    expect(isId('job', newTimeOrderedId('job', Date.now()))).toBe(true);
    expect(isId('key', newId('key'))).toBe(true);
    expect(isId('job', newId('key'))).toBe(false);
    expect(isId('job', 'job_\u0000')).toBe(false);
    expect(isId('job', `${newId('job')}0`)).toBe(false);
    expect(isId('job', newId('job').toUpperCase().replace('JOB', 'job'))).toBe(false);
  });
});
