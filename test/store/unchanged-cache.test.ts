import { describe, expect, it } from 'vitest';
import { UnchangedCache } from '../../src/store/unchanged-cache.js';

describe('UnchangedCache', () => {
  it('serves a stored value while the stamp stays and drops everything once it moves', () => {
    let stamp = [4, 7];
    const cache = new UnchangedCache<string>(() => stamp);
    expect(cache.get('a')).toBeUndefined();
    cache.set('a', 'row a');
    expect(cache.get('a')).toBe('row a');
    expect(cache.get('a')).toBe('row a');

    stamp = [5, 7]; // this connection wrote
    expect(cache.get('a')).toBeUndefined();
    cache.set('a', 'row a, updated');
    expect(cache.get('a')).toBe('row a, updated');

    stamp = [5, 8]; // another connection committed
    expect(cache.get('a')).toBeUndefined();
  });

  it('drops a value stored after a write that happened between its get and its set', () => {
    let stamp = [1, 1];
    const cache = new UnchangedCache<string>(() => stamp);
    expect(cache.get('k')).toBeUndefined();
    stamp = [1, 2]; // a revocation commits while the row is being read
    cache.set('k', 'row read before or after the commit');
    expect(cache.get('k')).toBeUndefined();
  });

  it('starts over past its size bound instead of growing', () => {
    const cache = new UnchangedCache<number>(() => [0], 3);
    for (let i = 0; i < 3; i++) {
      cache.get(`k${i}`);
      cache.set(`k${i}`, i);
    }
    expect([0, 1, 2].map((i) => cache.get(`k${i}`))).toEqual([0, 1, 2]);
    cache.set('k3', 3);
    expect([0, 1, 2, 3].map((i) => cache.get(`k${i}`))).toEqual([undefined, undefined, undefined, 3]);
  });
});
