// Tests for the bounded LRU that caches imported public keys.
// ARCHITECTURE §2 "Crypto backends" (keys cached per public key, memory bounded).

import { describe, expect, it } from 'vitest';
import { LruCache } from './lru.ts';

describe('LruCache', () => {
  it('never holds more than its capacity and evicts the least recently used entry', () => {
    const cache = new LruCache<string, number>(3);
    for (const [i, key] of ['a', 'b', 'c'].entries()) cache.set(key, i);
    expect(cache.get('a')).toBe(0); // a becomes the most recent
    cache.set('d', 3); // evicts b, the least recent
    expect(cache.size).toBe(3);
    expect(cache.has('b')).toBe(false);
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual([0, 2, 3]);
    for (let i = 0; i < 100; i++) cache.set(`k${i}`, i);
    expect(cache.size).toBe(3);
    expect([cache.get('k97'), cache.get('k98'), cache.get('k99')]).toEqual([97, 98, 99]);
  });

  it('refreshes an existing key on set instead of growing', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('a', 10);
    cache.set('c', 3); // evicts b
    expect(cache.get('a')).toBe(10);
    expect(cache.has('b')).toBe(false);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new LruCache(0)).toThrow(RangeError);
    expect(() => new LruCache(1.5)).toThrow(RangeError);
  });
});
