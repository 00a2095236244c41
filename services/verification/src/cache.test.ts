// The analysis cache on its own: TTL by resolved tier, LRU bound, eviction by kid and by agent, and
// keys that ignore key order but not settings. PROTOCOL §8.3 (TTLs 300/120/30/10 s, invalidateByKid).
import type { BundleAnalysis, SecurityTier } from '@proto/core';
import { describe, expect, it } from 'vitest';
import { BodyMemo } from './body-memo.ts';
import { analysisBytes, VerificationCache, verificationCacheKey } from './cache.ts';

function analysis(tier: SecurityTier | undefined, kids: string[], agentId?: string): BundleAnalysis {
  return {
    version: tier ? '2.0' : '1.0',
    ...(tier ? { resolvedTier: tier } : {}),
    ...(agentId ? { agentId } : {}),
    signerKids: kids,
    checkpointsVerified: 0,
    checks: {},
    findings: [],
    warnings: [],
    timeDependent: { signingKeys: [] },
  };
}

describe('VerificationCache', () => {
  it('keeps an analysis exactly as long as its tier allows (V1 as routine)', () => {
    let now = 0;
    const cache = new VerificationCache(100, () => now);
    const ttl: [SecurityTier | undefined, number][] = [
      ['routine', 300],
      ['standard', 120],
      ['elevated', 30],
      ['maximum', 10],
      [undefined, 300],
    ];
    for (const [tier] of ttl) cache.set(`k-${tier}`, analysis(tier, []));
    for (const [tier, seconds] of ttl) {
      now = seconds * 1000 - 1;
      expect(cache.get(`k-${tier}`), `${tier} just before`).toBeDefined();
      now = seconds * 1000;
      expect(cache.get(`k-${tier}`), `${tier} at expiry`).toBeUndefined();
    }
    expect(cache.size).toBe(0);
  });

  it('evicts the least recently used entry beyond its bound', () => {
    const cache = new VerificationCache(2);
    cache.set('a', analysis('routine', []));
    cache.set('b', analysis('routine', []));
    cache.get('a');
    cache.set('c', analysis('routine', []));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
    expect(cache.size).toBe(2);
  });

  it('evicts every analysis a kid signed, and every analysis of an agent', () => {
    const cache = new VerificationCache(10);
    cache.set('1', analysis('standard', ['kid-a', 'kid-b'], 'agent-1'));
    cache.set('2', analysis('standard', ['kid-b'], 'agent-2'));
    cache.set('3', analysis('standard', ['kid-c'], 'agent-1'));
    expect(cache.invalidateKid('kid-b')).toBe(2);
    expect(cache.get('1')).toBeUndefined();
    expect(cache.get('2')).toBeUndefined();
    expect(cache.invalidateKid('kid-a')).toBe(0);
    expect(cache.invalidateAgent('agent-1')).toBe(1);
    expect(cache.size).toBe(0);
  });

  it('evicts the least recently used entries beyond its byte bound, and keeps no analysis larger than it', () => {
    const one = analysisBytes('a', analysis('routine', ['kid-a']));
    const cache = new VerificationCache(100, Date.now, 3 * one);
    for (const key of ['a', 'b', 'c']) cache.set(key, analysis('routine', ['kid-a']));
    cache.get('a');
    cache.set('d', analysis('routine', ['kid-a']));
    expect(cache.size).toBe(3);
    expect(cache.bytes).toBe(3 * one);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    // The evicted entry left the kid index too: only the three held are counted.
    expect(cache.invalidateKid('kid-a')).toBe(3);
    expect(cache.bytes).toBe(0);
    const bloated = { ...analysis('routine', []), warnings: ['x'.repeat(4 * one)] };
    cache.set('e', bloated);
    expect(cache.get('e')).toBeUndefined();
    expect(cache.bytes).toBe(0);
  });

  it('stores nothing when disabled', () => {
    const cache = new VerificationCache(0);
    cache.set('a', analysis('routine', []));
    expect(cache.enabled).toBe(false);
    expect(cache.get('a')).toBeUndefined();
  });
});

describe('cache keys', () => {
  const keyOf = (settings: string, format: 'json' | 'cbor', text: string) =>
    verificationCacheKey(settings, BodyMemo.digest(format, Buffer.from(text)));

  it('are the exact bytes, their format and the settings (P235)', () => {
    const a = '{"signed_bundle":{"x":1,"y":[1,{"b":2,"a":1}]},"public_key_b64":"k"}';
    expect(keyOf('s1', 'json', a)).toBe(keyOf('s1', 'json', a));
    expect(keyOf('s2', 'json', a)).not.toBe(keyOf('s1', 'json', a));
    expect(keyOf('s1', 'cbor', a)).not.toBe(keyOf('s1', 'json', a));
    // Another text of the same request is another key: only a miss, never another request's analysis.
    expect(keyOf('s1', 'json', a.replace('"b":2,"a":1', '"a":1,"b":2'))).not.toBe(keyOf('s1', 'json', a));
  });

  it('tell apart texts a lenient reading would merge (1e400 and Infinity, duplicate members, lone surrogates)', () => {
    const key = (value: string) => keyOf('s', 'json', `{"signed_bundle":{"v":${value}}}`);
    const keys = [
      key('null'),
      key('1e400'),
      key('-1e400'),
      key('"null"'),
      key('"\\ud800"'),
      key('"\\ufffd"'),
      keyOf('s', 'json', '{"signed_bundle":{"v":1,"v":null}}'),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });
});
