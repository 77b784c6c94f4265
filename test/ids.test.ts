import { describe, expect, it } from 'vitest';
import { utcDay } from '../src/ids.js';

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
