// An RFC 9162 Merkle tree written straight from the RFC's recursive definitions, as the oracle for the log's and
// core's trees. RFC 9162 §2.1.1 (MTH), §2.1.3.1 (PATH), §2.1.4.1 (PROOF/SUBPROOF); tests only.
import { hash } from 'node:crypto';

// One-shot hash of the concatenation: a third cheaper than a createHash object per node, which the 1 M-leaf
// tile test pays a few million times (P104). Buffer.concat, not core's concatBytes: the oracle stays apart
// from the code it checks.
function sha256(...parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(hash('sha256', Buffer.concat(parts), 'buffer'));
}

const ZERO = Uint8Array.of(0);
const ONE = Uint8Array.of(1);

/** The leaf hash SHA-256(0x00 ‖ data). */
export function referenceLeafHash(data: Uint8Array): Uint8Array {
  return sha256(ZERO, data);
}

const leafHashMemo = new WeakMap<readonly Uint8Array[], Uint8Array[]>();

/** The leaf hashes of leaf inputs, the same array for the same input array (so the root memo applies). */
export function referenceLeafHashes(inputs: readonly Uint8Array[]): readonly Uint8Array[] {
  let hashes = leafHashMemo.get(inputs);
  if (hashes === undefined || hashes.length !== inputs.length) {
    hashes = inputs.map(referenceLeafHash);
    leafHashMemo.set(inputs, hashes);
  }
  return hashes;
}

function largestPowerOfTwoBelow(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

// MTH of a range, memoised per leaf-hash list only so that thousands of reference proofs stay cheap;
// the definitions are unchanged. The key is a number (start, end packed): string keys made the memo of a
// 1 M-leaf tree cost more than its hashing.
const rootMemo = new WeakMap<readonly Uint8Array[], Map<number, Uint8Array>>();

function mth(leaves: readonly Uint8Array[], start: number, end: number): Uint8Array {
  let cache = rootMemo.get(leaves);
  if (cache === undefined) {
    cache = new Map();
    rootMemo.set(leaves, cache);
  }
  const key = start * (leaves.length + 1) + end;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  let out: Uint8Array;
  if (end - start === 0) out = sha256();
  else if (end - start === 1) out = leaves[start] as Uint8Array;
  else {
    const k = largestPowerOfTwoBelow(end - start);
    out = sha256(ONE, mth(leaves, start, start + k), mth(leaves, start + k, end));
  }
  cache.set(key, out);
  return out;
}

/** MTH(D[0:n]) over leaf hashes (§2.1.1). */
export function referenceRoot(leafHashes: readonly Uint8Array[], n = leafHashes.length): Uint8Array {
  return mth(leafHashes, 0, n);
}

/**
 * MTH(D[start:end]): the root of a run of leaves taken as a tree of its own (a tile's hash is that of an aligned
 * run). On the same list as referenceRoot, so a complete subtree is hashed once for both.
 */
export function referenceRangeRoot(
  leafHashes: readonly Uint8Array[],
  start: number,
  end: number,
): Uint8Array {
  if (
    !(
      Number.isSafeInteger(start) &&
      Number.isSafeInteger(end) &&
      0 <= start &&
      start <= end &&
      end <= leafHashes.length
    )
  )
    throw new RangeError(
      `referenceRangeRoot: [${start}, ${end}) is not a range of ${leafHashes.length} leaves`,
    );
  return mth(leafHashes, start, end);
}

/** PATH(m, D[0:n]) (§2.1.3.1). */
export function referencePath(
  m: number,
  leafHashes: readonly Uint8Array[],
  n = leafHashes.length,
): Uint8Array[] {
  const path = (index: number, start: number, end: number): Uint8Array[] => {
    if (end - start === 1) return [];
    const k = largestPowerOfTwoBelow(end - start);
    if (index < k) return [...path(index, start, start + k), mth(leafHashes, start + k, end)];
    return [...path(index - k, start + k, end), mth(leafHashes, start, start + k)];
  };
  return path(m, 0, n);
}

/** PROOF(m, D[0:n]) = SUBPROOF(m, D[0:n], true) (§2.1.4.1); empty for m = 0 or m = n. */
export function referenceConsistency(
  m: number,
  leafHashes: readonly Uint8Array[],
  n = leafHashes.length,
): Uint8Array[] {
  const subproof = (mm: number, start: number, end: number, complete: boolean): Uint8Array[] => {
    if (mm === end - start) return complete ? [] : [mth(leafHashes, start, end)];
    const k = largestPowerOfTwoBelow(end - start);
    if (mm <= k) return [...subproof(mm, start, start + k, complete), mth(leafHashes, start + k, end)];
    return [...subproof(mm - k, start + k, end, false), mth(leafHashes, start, start + k)];
  };
  return m === 0 || m === n ? [] : subproof(m, 0, n, true);
}
