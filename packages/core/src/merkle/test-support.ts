// Test helpers for the Merkle tests: a seeded PRNG and an RFC 9162 reference written straight from the RFC's definitions.
// RFC 9162 §2.1.1 (MTH), §2.1.3.1 (PATH), §2.1.4.1 (PROOF/SUBPROOF); used only by *.test.ts.
import { createHash } from 'node:crypto';

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

const ZERO = new Uint8Array([0]);
const ONE = new Uint8Array([1]);

export function referenceLeafHash(data: Uint8Array): Uint8Array {
  return sha256(ZERO, data);
}

function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** MTH(D) over leaf hashes: the empty string's hash, the leaf hash itself, or 0x01-prefixed node. */
export function referenceRoot(leafHashes: readonly Uint8Array[]): Uint8Array {
  const n = leafHashes.length;
  if (n === 0) return sha256();
  if (n === 1) return leafHashes[0] as Uint8Array;
  const k = split(n);
  return sha256(ONE, referenceRoot(leafHashes.slice(0, k)), referenceRoot(leafHashes.slice(k)));
}

/** PATH(m, D). */
export function referencePath(m: number, leafHashes: readonly Uint8Array[]): Uint8Array[] {
  const n = leafHashes.length;
  if (n === 1) return [];
  const k = split(n);
  if (m < k) return [...referencePath(m, leafHashes.slice(0, k)), referenceRoot(leafHashes.slice(k))];
  return [...referencePath(m - k, leafHashes.slice(k)), referenceRoot(leafHashes.slice(0, k))];
}

/** SUBPROOF(m, D, b). */
function referenceSubproof(m: number, leafHashes: readonly Uint8Array[], complete: boolean): Uint8Array[] {
  const n = leafHashes.length;
  if (m === n) return complete ? [] : [referenceRoot(leafHashes)];
  const k = split(n);
  if (m <= k)
    return [...referenceSubproof(m, leafHashes.slice(0, k), complete), referenceRoot(leafHashes.slice(k))];
  return [...referenceSubproof(m - k, leafHashes.slice(k), false), referenceRoot(leafHashes.slice(0, k))];
}

/** PROOF(m, D) for 0 < m < n. */
export function referenceConsistency(m: number, leafHashes: readonly Uint8Array[]): Uint8Array[] {
  return referenceSubproof(m, leafHashes, true);
}

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
