// The engine reuses work inside one verification (canonical texts by identity for the bundle hash,
// one message buffer per composite signature, KeyObjects found by key array, a fail-fast schema
// pass): none of it may leak into another verification or survive a change of the data. Issue 14.
import { describe, expect, it } from 'vitest';
import { canonicalizeV2, canonicalMemoV2, MAX_CANONICAL_DEPTH } from '../canonical/index.ts';
import { framedMessages, framePayload } from '../crypto/domain.ts';
import { domainSeparatedMessage, domainSeparatedMessages } from '../crypto/index.ts';
import { utf8Encode } from '../encoding/index.ts';
import { buildSignedBundle } from './build/index.ts';
import { a, backend, clone, FIXED_NOW, type J, makeVerifier, o } from './test-support.ts';
import { computeBundleHash } from './v2/pipeline.ts';

const built = buildSignedBundle({ tier: 'maximum', entries: 4, backend, now: FIXED_NOW });
const verifier = makeVerifier();

/** What the engine says about a value, compared as the JSON a service would send. */
const verdictOf = (signed: unknown) => JSON.stringify(verifier.verify({ signed_bundle: signed }));
const hashOf = (signed: unknown) =>
  verifier.analyze({ signed_bundle: signed }, { bundleHash: true }).bundleHash;

describe('reuse inside the engine', () => {
  it('a payload altered after a first verification is judged on its new bytes', () => {
    const signed = clone(built.signed_bundle);
    const first = verifier.verify({ signed_bundle: signed });
    expect(first.verified).toBe(true);
    expect(hashOf(signed)).toBe(built.bundleHash);

    o(o(o(signed['bundle'])['intent'])['payload'])['action_type'] = 'altered';
    const second = verifier.verify({ signed_bundle: signed });
    expect(second.verified).toBe(false);
    // The very same object now gives exactly what a fresh copy of it gives.
    expect(JSON.stringify(second)).toBe(verdictOf(clone(signed)));
    expect(hashOf(signed)).toBe(hashOf(clone(signed)));
    expect(hashOf(signed)).not.toBe(built.bundleHash);
    // And the original bytes still verify afterwards.
    expect(verdictOf(clone(built.signed_bundle))).toBe(JSON.stringify(first));
  });

  it('an audit entry altered between verifications changes the bundle hash and fails', () => {
    const signed = clone(built.signed_bundle);
    expect(verifier.verify({ signed_bundle: signed }).verified).toBe(true);
    const entries = a(o(signed['bundle'])['audit_entries']);
    o(entries[1])['outcome'] = 'tampered';
    expect(verifier.verify({ signed_bundle: signed }).verified).toBe(false);
    expect(hashOf(signed)).toBe(hashOf(clone(signed)));
    expect(hashOf(signed)).not.toBe(built.bundleHash);
  });

  it('two bundles sharing objects get the verdicts and hashes of their own copies', () => {
    const one = clone(built.signed_bundle);
    const other = buildSignedBundle({ tier: 'maximum', entries: 4, backend, now: FIXED_NOW }).signed_bundle;
    // The second bundle borrows the first one's intent envelope (same object), which its own
    // signatures do not cover; the first stays intact.
    const mixed = { ...other, bundle: { ...o(other['bundle']), intent: o(one['bundle'])['intent'] } };
    expect(verifier.verify({ signed_bundle: one }).verified).toBe(true);
    expect(verdictOf(mixed)).toBe(verdictOf(clone(mixed)));
    expect(hashOf(mixed)).toBe(hashOf(clone(mixed)));
    expect(hashOf(mixed)).not.toBe(hashOf(one));
    expect(verifier.verify({ signed_bundle: one }).verified).toBe(true);
    expect(hashOf(one)).toBe(built.bundleHash);
  });

  it('one object in two places of a bundle is written twice in its canonical form', () => {
    const signed = clone(built.signed_bundle);
    const bundle = o(signed['bundle']);
    const entries = a(bundle['audit_entries']);
    entries[2] = entries[1] as J; // a DAG, as JSON.parse never makes but a caller can
    expect(verdictOf(signed)).toBe(verdictOf(clone(signed)));
    expect(hashOf(signed)).toBe(hashOf(clone(signed)));
  });

  it('the bundle hash equals the public computeBundleHash (no memo) for valid and altered bundles', () => {
    const signed = clone(built.signed_bundle);
    const direct = computeBundleHash(signed);
    expect(direct.ok && direct.value).toBe(hashOf(signed));
    o(o(signed['signature'])['composite_sig'])['binding'] = 'classical_only';
    const altered = computeBundleHash(signed);
    expect(altered.ok && altered.value).toBe(hashOf(signed));
  });
});

describe('canonical memo', () => {
  const nest = (levels: number): unknown => {
    let value: unknown = 'leaf';
    for (let i = 0; i < levels; i++) value = { n: value };
    return value;
  };

  it('reuses a text only where its depth still fits, with the same error as without it', () => {
    // Fits alone (depth 63 containers) but not three levels deeper.
    const part = nest(MAX_CANONICAL_DEPTH - 1);
    const memo = canonicalMemoV2();
    expect(canonicalizeV2(part, memo).ok).toBe(true);
    const whole = { a: { b: part } };
    const withMemo = canonicalizeV2(whole, memo);
    const without = canonicalizeV2(whole);
    expect(without.ok).toBe(false);
    expect(withMemo).toEqual(without);
    // At a depth where it fits, the memo's text is the text.
    const shallow = { a: part };
    expect(canonicalizeV2(nest(1), memo).ok).toBe(true);
    expect(canonicalizeV2(shallow, memo)).toEqual(canonicalizeV2(shallow));
  });

  it('a memo holds texts of the values it saw, never of equal-looking others', () => {
    const memo = canonicalMemoV2();
    const x = { k: 1 };
    const y = { k: 1 };
    expect(canonicalizeV2(x, memo).ok).toBe(true);
    y.k = 2;
    expect(canonicalizeV2({ x, y }, memo)).toEqual(canonicalizeV2({ x, y }));
  });
});

describe('one message buffer per composite signature', () => {
  it('the DSM view and DSM ‖ classical signature are exactly the separate messages', () => {
    const payload = Uint8Array.of(1, 2, 3, 4);
    const suffix = Uint8Array.of(9, 8, 7);
    const { dsm, withSuffix } = domainSeparatedMessages('PROTO.v2.Bundle', payload, suffix);
    const plain = domainSeparatedMessage('PROTO.v2.Bundle', payload);
    expect([...dsm]).toEqual([...plain]);
    expect([...withSuffix]).toEqual([...plain, ...suffix]);
    const empty = domainSeparatedMessages('PROTO.v2.Bundle', payload, new Uint8Array(0));
    expect([...empty.dsm]).toEqual([...plain]);
  });

  it('a payload framed behind its prefix gives the same messages, whatever the suffix (P128)', () => {
    const text = '{"a":"é€𝄞","b":[1,2]}';
    const payload = utf8Encode(text);
    const framed = framePayload('PROTO.v2.Intent', text, 64);
    expect([...framed.payload]).toEqual([...payload]);
    // Within the room, past it (the copy), empty; and a second call rewrites the room for its own suffix.
    for (const length of [64, 3, 65, 0, 64]) {
      const suffix = Uint8Array.from({ length }, (_, i) => (i * 7 + length) & 0xff);
      const expected = domainSeparatedMessages('PROTO.v2.Intent', payload, suffix);
      const got = framedMessages(framed, suffix);
      expect([...got.dsm]).toEqual([...expected.dsm]);
      expect([...got.withSuffix]).toEqual([...expected.withSuffix]);
    }
    expect([...framed.payload]).toEqual([...payload]);
  });
});

describe('native key cache by key array', () => {
  it('a key array rewritten in place is never verified under its earlier key', () => {
    for (const alg of backend.algorithms) {
      const first = backend.generateKeyPair(alg);
      const second = backend.generateKeyPair(alg);
      const message = Uint8Array.of(1, 2, 3);
      const sigFirst = backend.sign(alg, first.secretKey, message);
      const sigSecond = backend.sign(alg, second.secretKey, message);
      const key = Uint8Array.from(first.publicKey);
      expect(backend.verify(alg, key, message, sigFirst)).toBe(true);
      key.set(second.publicKey);
      expect(backend.verify(alg, key, message, sigFirst)).toBe(false);
      expect(backend.verify(alg, key, message, sigSecond)).toBe(true);
      key.set(first.publicKey);
      expect(backend.verify(alg, key, message, sigSecond)).toBe(false);
      expect(backend.verify(alg, key, message, sigFirst)).toBe(true);
    }
  });
});
