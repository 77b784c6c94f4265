import { describe, expect, it } from 'vitest';
import { outageLog } from '../src/outage-log.js';

describe('outage log', () => {
  it('warns once when a dependency goes away, again at most every 30 s, and once when it is back', () => {
    const lines: string[] = [];
    const log = {
      warn: (_: object, msg: string) => lines.push(`warn ${msg}`),
      info: (_: object, msg: string) => lines.push(`info ${msg}`),
    };
    let now = 0;
    const health = outageLog(log, { down: 'down', up: 'up' }, 30_000, () => now);
    health.ok();
    for (let i = 0; i < 50; i++, now += 100) health.failed(new Error('ECONNREFUSED'));
    expect(lines).toEqual(['warn down']);
    now += 30_000;
    health.failed(new Error('ECONNREFUSED'));
    health.failed(new Error('ECONNREFUSED'));
    expect(lines).toEqual(['warn down', 'warn down']);
    expect(health.down).toBe(true);
    health.ok();
    health.ok();
    expect(health.down).toBe(false);
    expect(lines).toEqual(['warn down', 'warn down', 'info up']);
    health.failed(new Error('again'));
    expect(lines).toEqual(['warn down', 'warn down', 'info up', 'warn down']);
  });

  it('with an infinite repeat, warns once per outage however long it lasts', () => {
    const lines: string[] = [];
    const log = {
      warn: (_: object, msg: string) => lines.push(`warn ${msg}`),
      info: (_: object, msg: string) => lines.push(`info ${msg}`),
    };
    let now = 0;
    const health = outageLog(log, { down: 'down', up: 'up' }, Infinity, () => now);
    for (let i = 0; i < 5; i++, now += 3_600_000) health.failed(new Error('ECONNREFUSED'));
    health.ok();
    health.failed(new Error('again'));
    expect(lines).toEqual(['warn down', 'info up', 'warn down']);
  });
});
