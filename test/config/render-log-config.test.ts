import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

describe('render log configuration', () => {
  it('keeps records 7 days unless RENDER_LOG_RETENTION_DAYS says otherwise', () => {
    expect(loadConfig({}).renderLogRetentionDays).toBe(7);
    expect(loadConfig({ RENDER_LOG_RETENTION_DAYS: '30' }).renderLogRetentionDays).toBe(30);
  });

  it.each(['0', '-1', '2.5', 'a week', '36501'])('refuses RENDER_LOG_RETENTION_DAYS=%s naming the variable', (value) => {
    expect(() => loadConfig({ RENDER_LOG_RETENTION_DAYS: value })).toThrow(/^RENDER_LOG_RETENTION_DAYS: /);
  });
});
