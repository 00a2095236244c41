// Test helpers for the Merkle tests: a seeded PRNG, leaves, bit flips, and the RFC 9162 reference of @proto/testing.
// RFC 9162 §2.1.1 (MTH), §2.1.3.1 (PATH), §2.1.4.1 (PROOF/SUBPROOF); used only by *.test.ts.
import { createHash } from 'node:crypto';
import { referenceLeafHash } from '@proto/testing';

/** Deterministic PRNG (mulberry32), so a failing size or index can be reproduced. */
export function seededRandom(seed: number): (maxExclusive: number) => number {
  let state = seed >>> 0;
  return (maxExclusive) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const unit = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return Math.floor(unit * maxExclusive);
  };
}

export function sha256(...parts: Uint8Array[]): Uint8Array {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return new Uint8Array(hash.digest());
}

// The RFC 9162 reference lives in @proto/testing, the one reference tree of the repository.
export { referenceConsistency, referenceLeafHash, referencePath, referenceRoot } from '@proto/testing';

/** `count` leaf hashes of distinct data. */
export function makeLeaves(count: number, tag = 'leaf'): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < count; i++) out.push(referenceLeafHash(new TextEncoder().encode(`${tag}-${i}`)));
  return out;
}

/** A copy of `bytes` with one bit flipped. */
export function flipBit(bytes: Uint8Array, bit = 0): Uint8Array {
  const copy = bytes.slice();
  copy[bit >> 3] = (copy[bit >> 3] as number) ^ (1 << (bit & 7));
  return copy;
}
