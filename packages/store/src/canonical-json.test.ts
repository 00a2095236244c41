// Tests of the store's canonical JSON and content hash: sorted keys, compact, `sha256:` + hex.
// Covers D2 (UTF-16 key order) and D3/D14 (prefixed content hashes used for idempotent puts).
import { describe, expect, it } from 'vitest';
import { canonicalJson, contentHash } from './canonical-json.ts';

describe('canonicalJson', () => {
  it('sorts keys at every depth and writes no whitespace', () => {
    const value = { é: -5, a: { c: 'é', b: true }, A: null, '': [] };
    expect(canonicalJson(value)).toBe('{"":[],"A":null,"a":{"b":true,"c":"é"},"é":-5}');
  });

  it('orders keys by UTF-16 code units, not code points (D2)', () => {
    // U+1F600 is written as the surrogate pair D83D DE00, which sorts before U+FB01.
    expect(canonicalJson({ '\uFB01': 1, '😀': 2 })).toBe('{"😀":2,"ﬁ":1}');
  });

  it('keeps array order and a "__proto__" member as data', () => {
    const parsed: unknown = JSON.parse('{"__proto__":{"x":1},"list":[3,1,2]}');
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"x":1},"list":[3,1,2]}');
  });

  it('refuses what JSON cannot carry', () => {
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(TypeError);
    expect(() => canonicalJson({ n: Number.POSITIVE_INFINITY })).toThrow(TypeError);
    expect(() => canonicalJson({ n: 1n })).toThrow(TypeError);
    expect(() => canonicalJson({ d: new Date(0) })).toThrow(TypeError);
    expect(() => canonicalJson(undefined)).toThrow(TypeError);
  });
});

describe('contentHash', () => {
  it('is sha256: + hex SHA-256 of the canonical text, whatever the key order', () => {
    const expected = 'sha256:015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862'; // sha256('{"a":1}')
    expect(contentHash({ a: 1 })).toBe(expected);
    expect(contentHash({ é: -5, a: { c: 'é', b: true }, A: null, '': [] })).toBe(
      'sha256:780d440dc4841f085e207a499044a9f257b60c369a65a82f568bce83f7599124',
    );
    expect(contentHash({ b: 2, a: 1 })).toBe(contentHash({ a: 1, b: 2 }));
  });
});
