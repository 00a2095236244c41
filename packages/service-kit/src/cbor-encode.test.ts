// The direct CBOR writer against the encoder it replaces (cbor-x after a copy of the value): the same bytes
// for JSON-shaped values and for real /verify answers; where they differ, the old bytes broke §8.2's own
// rules, and the cases are pinned here. Issue 14 item 4, PROTOCOL §8.2, P83.
import { buildSignedBundle, createVerifier, selectCryptoBackend } from '@proto/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCbor } from './cbor-decode.ts';
import { encodeCbor } from './cbor-encode.ts';
import { CborError } from './cbor-error.ts';
import { cborKeys, cborValues, previousEncodeCbor } from './test-support.ts';

/** The encoder's outcome: its bytes in hex, or its refusal. */
function outcome(encode: (value: unknown) => Uint8Array, value: unknown): string {
  try {
    return Buffer.from(encode(value)).toString('hex');
  } catch (error) {
    expect(error).toBeInstanceOf(CborError);
    return `refused: ${(error as Error).message}`;
  }
}

function sameAsBefore(value: unknown): void {
  expect(outcome(encodeCbor, value)).toBe(outcome(previousEncodeCbor, value));
}

/** Keys the old encoder ordered right: not array indices (JS lists those first, whatever the insertion order). */
const isIndexLike = (key: string) => /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 2 ** 32 - 1;
const value = cborValues({
  keys: cborKeys.filter((key) => !isIndexLike(key) && key !== '__proto__'),
  maxItems: 30,
  maxBytes: 300,
  floats: false,
  undefinedItems: true,
  leafWeight: 5,
  // Both `sig` and `sig_b64`: the old encoder dropped one of them (pinned below).
  mapFilter: (d) => !(('sig' in d && 'sig_b64' in d) || ('public_key' in d && 'public_key_b64' in d)),
});

describe('encodeCbor against the previous encoder', () => {
  it('writes the same bytes (or the same refusal) for JSON-shaped values', () => {
    fc.assert(fc.property(value, sameAsBefore), { numRuns: 2000 });
  });

  it('refuses what the previous encoder refused', () => {
    for (const bad of [1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, { x: [0.1] }, 1n, () => 1]) {
      sameAsBefore(bad);
      expect(() => encodeCbor(bad)).toThrow(CborError);
    }
    expect(() => encodeCbor(undefined)).toThrow('value of type undefined cannot be encoded');
  });

  it('writes what toJSON gives (a Date as its ISO text), as before', () => {
    sameAsBefore({ at: new Date(0), nested: { toJSON: () => ({ b: 1, a: [2] }) } });
  });

  it('writes the same bytes for real /verify answers (valid, failing, V1, expired)', () => {
    const backend = selectCryptoBackend('auto');
    const built = createVerifier({ mode: 'hybrid_preferred', backend });
    if (!built.ok) throw new Error(built.error.message);
    const verifier = built.value;
    const answers: unknown[] = [];
    for (const options of [
      { tier: 'routine', entries: 3 },
      { tier: 'elevated', entries: 10 },
      { tier: 'maximum', entries: 12 },
      { version: '1.0', entries: 3 },
    ] as const) {
      const bundle = buildSignedBundle({ ...options, backend }).signed_bundle as Record<string, unknown>;
      const analysis = verifier.analyze({ signed_bundle: bundle });
      answers.push(verifier.finalize(analysis, new Date()));
      answers.push(verifier.finalize(analysis, new Date(Date.now() + 400 * 86_400_000)));
      const tampered = JSON.parse(
        JSON.stringify(bundle).replace(/"sig_b64":"[A-Za-z0-9+/]/g, '"sig_b64":"A'),
      );
      answers.push(verifier.finalize(verifier.analyze({ signed_bundle: tampered }), new Date()));
      const broken = { ...bundle, manifest: 'nope', extra: [1, 2] };
      answers.push(verifier.finalize(verifier.analyze({ signed_bundle: broken }), new Date()));
    }
    answers.push(verifier.finalize(verifier.analyze({}), new Date()));
    const failing = answers.filter((a) => (a as { verified: boolean }).verified === false);
    expect(failing.length).toBeGreaterThan(4);
    for (const answer of answers) {
      sameAsBefore(answer);
      expect(decodeCbor(encodeCbor(answer))).toStrictEqual(JSON.parse(JSON.stringify(answer)));
    }
  });
});

describe('encodeCbor where the previous bytes broke PROTOCOL §8.2 (P83)', () => {
  it('orders index-like keys by encoded length, then bytewise, like every other key', () => {
    // JS lists "2" and "10" before "b" whatever the order of insertion; canonical is "2", "b", "10".
    expect(encodeCbor({ b: 1, 10: 2, 2: 3 }).toString('hex')).toBe(
      'a3613203616201623130 02'.replace(' ', ''),
    );
    expect(previousEncodeCbor({ b: 1, 10: 2, 2: 3 }).toString('hex')).not.toBe(
      encodeCbor({ b: 1, 10: 2, 2: 3 }).toString('hex'),
    );
  });

  it('writes -2^32 with the smallest head (4 bytes, not 8)', () => {
    expect(encodeCbor(-(2 ** 32)).toString('hex')).toBe('3affffffff');
    expect(decodeCbor(encodeCbor(-(2 ** 32)))).toBe(-(2 ** 32));
  });

  it('writes text as UTF-8 only: a lone surrogate becomes U+FFFD, so the bytes decode', () => {
    const lone = { a: 'x\uD800y' };
    expect(decodeCbor(encodeCbor(lone))).toStrictEqual({ a: 'x\uFFFDy' });
  });

  it('writes a hole in an array as null, as JSON does (never `undefined`, which decoding refuses)', () => {
    // biome-ignore lint/suspicious/noSparseArray: the hole is the case under test.
    const sparse = [1, , 3];
    expect(encodeCbor(sparse).toString('hex')).toBe('8301f603');
    expect(decodeCbor(encodeCbor(sparse))).toStrictEqual([1, null, 3]);
  });

  it('keeps `sig_b64` as text when the object also has `sig` (no member lost)', () => {
    const both = { sig: 'text', sig_b64: 'AQID' };
    expect(decodeCbor(encodeCbor(both))).toStrictEqual(both);
    expect(decodeCbor(encodeCbor({ sig: undefined, sig_b64: 'AQID' }))).toStrictEqual({ sig_b64: 'AQID' });
  });

  it('gives each result its own memory (transferable; not a view of a shared buffer)', () => {
    const first = encodeCbor({ a: 1 });
    const second = encodeCbor({ a: 2 });
    expect(first.buffer).not.toBe(second.buffer);
    expect(first.byteOffset).toBe(0);
    expect(first.buffer.byteLength).toBe(first.length);
    expect(first.toString('hex')).toBe('a1616101');
  });

  it('grows past its initial buffer and gives large growth back', () => {
    const big = { data: 'x'.repeat(3_000_000), list: Array.from({ length: 5000 }, (_, i) => i) };
    expect(decodeCbor(encodeCbor(big))).toStrictEqual(big);
    expect(encodeCbor({ a: 1 }).toString('hex')).toBe('a1616101');
  });

  it('encodes again from inside a toJSON without spoiling the outer encoding', () => {
    const inner = { toJSON: () => encodeCbor({ z: 1 }).toString('hex') };
    expect(decodeCbor(encodeCbor({ a: inner, b: 'after' }))).toStrictEqual({ a: 'a1617a01', b: 'after' });
  });
});
