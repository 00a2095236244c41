// A SPEC-shape checkpoint's four stated digests are compared with the computed ones without writing them
// as hex (P133): the same refusals and messages as comparing with `prefixedHash(alg, toHex(digest))`.
// PROTOCOL §6.6; DECISIONS D6.
import { describe, expect, it } from 'vitest';
import { toHex } from '../../encoding/index.ts';
import { digest, type HashAlg, isPrefixedHashOf, prefixedHash } from '../../hash/index.ts';
import { buildSignedBundle } from '../build/index.ts';
import { backend, FIXED_NOW, type J, makeVerifier, o } from '../test-support.ts';

/** Deterministic bytes and choices, so a failure names the same input on every run. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('isPrefixedHashOf', () => {
  it('answers as value === prefixedHash(alg, toHex(digest)) over mangled texts and other values', () => {
    const random = prng(133);
    const pick = (text: string) => text[Math.floor(random() * text.length)] as string;
    let mismatches = 0;
    for (let round = 0; round < 400; round++) {
      const alg: HashAlg = round % 2 === 0 ? 'sha256' : 'sha3-256';
      const other: HashAlg = alg === 'sha256' ? 'sha3-256' : 'sha256';
      // Mostly digests, some shorter and longer byte strings (the length check is part of the answer).
      const size = round % 7 === 0 ? Math.floor(random() * 40) : 32;
      const bytes = Uint8Array.from({ length: size }, () => Math.floor(random() * 256));
      const right = prefixedHash(alg, toHex(bytes));
      const at = Math.floor(random() * right.length);
      const texts: unknown[] = [
        right,
        right.toUpperCase(),
        prefixedHash(other, toHex(bytes)),
        toHex(bytes),
        `${right}0`,
        right.slice(0, -1),
        right.slice(0, -2),
        ` ${right}`,
        `${alg};${toHex(bytes)}`,
        `${alg}:${toHex(bytes).toUpperCase()}`,
        right.slice(0, at) + pick('0123456789abcdefABCDEF:g \u00e9') + right.slice(at + 1),
        right.slice(0, at) + right.slice(at + 1),
        `${right.slice(0, at)}\u0130${right.slice(at + 1)}`,
        bytes,
        null,
        undefined,
        42,
        [right],
        { toString: () => right },
      ];
      for (const text of texts) {
        const expected = text === right;
        if (isPrefixedHashOf(text, alg, bytes) !== expected) mismatches++;
        expect(isPrefixedHashOf(text, alg, bytes)).toBe(expected);
      }
    }
    expect(mismatches).toBe(0);
  });

  it('holds every one-character change of a digest as different', () => {
    const bytes = digest('sha3-256', 'one-character changes');
    const right = prefixedHash('sha3-256', toHex(bytes));
    for (let at = 0; at < right.length; at++) {
      for (const character of '0123456789abcdef:-3') {
        const changed = right.slice(0, at) + character + right.slice(at + 1);
        expect(isPrefixedHashOf(changed, 'sha3-256', bytes)).toBe(changed === right);
      }
    }
  });
});

describe('SPEC-shape checkpoint digests', () => {
  // Signatures answered at once: a changed audit_state no longer matches its checkpoint's signature, and
  // only the digest comparison is under test here.
  const verifier = makeVerifier({ profile: 'proto', backend: { ...backend, verify: () => true } });
  // Checkpoints over 2, 4 and 5 entries: roots of a prefix (folded from the tree) and of every entry.
  const signed = buildSignedBundle({
    now: FIXED_NOW,
    backend,
    profile: 'proto',
    shape: 'spec',
    tier: 'elevated',
    entries: 5,
    checkpointInterval: 2,
  }).signed_bundle as J;
  const checkpoints = o(signed['bundle'])['pq_checkpoints'] as J[];
  const FIELDS = ['primary_merkle_root', 'secondary_merkle_root', 'last_primary_hash', 'last_secondary_hash'];

  it('verifies as built', () => {
    expect(checkpoints.map((cp) => o(cp['audit_state'])['entry_count'])).toEqual([2, 4, 5]);
    const analysis = verifier.analyze({ signed_bundle: signed });
    expect(analysis.findings).toEqual([]);
    expect(analysis.checkpointsVerified).toBe(3);
  });

  it('refuses every changed hex digit and every other digest of the bundle, with the computed value named', () => {
    const statedOf = (cp: J) => FIELDS.map((field) => o(cp['audit_state'])[field] as string);
    const allStated = checkpoints.flatMap(statedOf);
    let compared = 0;
    for (const [index, cp] of checkpoints.entries()) {
      const state = o(cp['audit_state']);
      const count = state['entry_count'];
      // SPEC-shape checkpoints have no checkpoint_id: messages name them by position.
      expect(cp['checkpoint_id']).toBeUndefined();
      for (const field of FIELDS) {
        const right = state[field] as string;
        const hexStart = right.indexOf(':') + 1;
        const wrongs = allStated.filter((other) => other !== right);
        for (let at = hexStart; at < right.length; at++) {
          const character = right[at] === 'a' ? '7' : 'a';
          wrongs.push(right.slice(0, at) + character + right.slice(at + 1));
        }
        for (const wrong of wrongs) {
          state[field] = wrong;
          const analysis = verifier.analyze({ signed_bundle: signed });
          state[field] = right;
          // A digest of the other family fails the schema's pattern first; every well-formed one reaches
          // the checkpoint's comparison.
          if (analysis.findings.some((f) => f.check === 'schema')) {
            expect(wrong.startsWith(field.includes('secondary') ? 'sha256:' : 'sha3-256:')).toBe(true);
            continue;
          }
          compared++;
          expect(analysis.findings).toEqual([
            {
              check: 'checkpoints',
              code: 'MERKLE_ROOT_MISMATCH',
              message: `checkpoint[${index}]: audit_state.${field} does not match the first ${count} entries (computed ${right})`,
            },
          ]);
        }
      }
    }
    // 3 checkpoints × 4 fields × 64 digits, besides the same family's other digests.
    expect(compared).toBeGreaterThan(3 * 4 * 64);
    expect(verifier.analyze({ signed_bundle: signed }).findings).toEqual([]);
  });
});
