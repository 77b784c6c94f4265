import { describe, expect, it } from 'vitest';
import { crc32Hex, displayPrefixOf, generateKey, hashKey, parseKey } from '../../src/accounts/key-format.js';

describe('API key format', () => {
  it('generates pwr/pwm keys of 32 lowercase hex whose last 8 are the CRC32 of the rest', () => {
    for (const [service, prefix] of [
      ['render', 'pwr'],
      ['metadata', 'pwm'],
    ] as const) {
      const key = generateKey(service);
      expect(key).toMatch(new RegExp(`^${prefix}_live_[0-9a-f]{32}$`));
      expect(key.slice(-8)).toBe(crc32Hex(key.slice(0, -8)));
      expect(parseKey(key)).toEqual({ service, displayPrefix: key.slice(0, 13) });
    }
  });

  it('computes the standard CRC-32', () => {
    // The check value of CRC-32/ISO-HDLC (zlib's crc32).
    expect(crc32Hex('123456789')).toBe('cbf43926');
  });

  it('generates distinct keys', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateKey('render')));
    expect(keys.size).toBe(1000);
  });

  it.each([
    ['wrong prefix', (k: string) => k.replace('pwr_', 'pwx_')],
    ['test instead of live', (k: string) => k.replace('_live_', '_test_')],
    ['uppercase hex', (k: string) => k.slice(0, 9) + k.slice(9).toUpperCase()],
    ['too short', (k: string) => k.slice(0, -1)],
    ['too long', (k: string) => `${k}0`],
    ['bad checksum', (k: string) => k.slice(0, -1) + (k.endsWith('0') ? '1' : '0')],
    ['changed body', (k: string) => k.slice(0, 9) + (k[9] === 'a' ? 'b' : 'a') + k.slice(10)],
    ['surrounding space', (k: string) => ` ${k}`],
    ['empty', () => ''],
  ])('refuses a key with %s', (_name, mutate) => {
    expect(parseKey(mutate(generateKey('render')))).toBeUndefined();
  });

  it('hashes with SHA-256 and shows only the display prefix', () => {
    const key = generateKey('metadata');
    expect(hashKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(displayPrefixOf(key)).toBe(key.slice(0, 'pwm_live_'.length + 4));
  });
});
