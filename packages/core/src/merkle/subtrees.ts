// RFC 9162 roots and proofs from stored perfect-subtree hashes, for the transparency log and anchor batches.
// RFC 9162 §2.1; DECISIONS D18, D19 (durable logs keep only perfect subtrees; every answer costs O(log n) reads).
import { rfc9162EmptyRoot, rfc9162NodeHash } from './rfc9162.ts';
import {
  consistencyRanges,
  inclusionRanges,
  isCount,
  type LeafRange,
  perfectSubtrees,
  type SubtreeCoordinate,
} from './tree-shape.ts';

export type { SubtreeCoordinate } from './tree-shape.ts';

/**
 * Returns the stored hash of perfect subtree (level, index); level 0 is the leaf hash. It may throw
 * when the store lacks the node: that is a bug in the caller and propagates unchanged.
 */
export type SubtreeReader = (level: number, index: number) => Uint8Array;

function checkTreeSize(treeSize: number): void {
  if (!isCount(treeSize)) throw new RangeError(`tree size ${treeSize} is not a non-negative safe integer`);
}

function checkLeafIndex(index: number, treeSize: number): void {
  checkTreeSize(treeSize);
  if (!isCount(index) || index >= treeSize) {
    throw new RangeError(`leaf index ${index} is outside a tree of size ${treeSize}`);
  }
}

function checkSizes(oldSize: number, newSize: number): void {
  checkTreeSize(oldSize);
  checkTreeSize(newSize);
  if (oldSize > newSize) throw new RangeError(`old size ${oldSize} exceeds new size ${newSize}`);
}

function proofRanges(oldSize: number, newSize: number): LeafRange[] {
  return oldSize === 0 || oldSize === newSize ? [] : consistencyRanges(oldSize, newSize);
}

/** MTH of a range from its perfect subtrees, read largest first, then folded right to left. */
function foldRange(range: LeafRange, read: SubtreeReader): Uint8Array {
  const hashes = perfectSubtrees(range).map((part) => read(part.level, part.index));
  let hash = hashes[hashes.length - 1] as Uint8Array;
  for (let i = hashes.length - 2; i >= 0; i--) hash = rfc9162NodeHash(hashes[i] as Uint8Array, hash);
  return hash;
}

/** The nodes `rootFromSubtrees` reads: one per set bit of treeSize, largest first. */
export function subtreesForRoot(treeSize: number): SubtreeCoordinate[] {
  checkTreeSize(treeSize);
  return treeSize === 0 ? [] : perfectSubtrees({ start: 0, end: treeSize });
}

/** The nodes `inclusionProofFromSubtrees` reads, in reading order. */
export function subtreesForInclusion(index: number, treeSize: number): SubtreeCoordinate[] {
  checkLeafIndex(index, treeSize);
  return inclusionRanges(index, treeSize).flatMap(perfectSubtrees);
}

/** The nodes `consistencyProofFromSubtrees` reads, in reading order. */
export function subtreesForConsistency(oldSize: number, newSize: number): SubtreeCoordinate[] {
  checkSizes(oldSize, newSize);
  return proofRanges(oldSize, newSize).flatMap(perfectSubtrees);
}

/** Same bytes as `rfc9162Root` over the first treeSize leaves. */
export function rootFromSubtrees(treeSize: number, read: SubtreeReader): Uint8Array {
  checkTreeSize(treeSize);
  return treeSize === 0 ? rfc9162EmptyRoot() : foldRange({ start: 0, end: treeSize }, read);
}

/** Same bytes as `rfc9162InclusionProof` over the first treeSize leaves. */
export function inclusionProofFromSubtrees(
  index: number,
  treeSize: number,
  read: SubtreeReader,
): Uint8Array[] {
  checkLeafIndex(index, treeSize);
  return inclusionRanges(index, treeSize).map((range) => foldRange(range, read));
}

/** Same bytes as `rfc9162ConsistencyProof` over the first newSize leaves. */
export function consistencyProofFromSubtrees(
  oldSize: number,
  newSize: number,
  read: SubtreeReader,
): Uint8Array[] {
  checkSizes(oldSize, newSize);
  return proofRanges(oldSize, newSize).map((range) => foldRange(range, read));
}

/**
 * The perfect-subtree nodes completed by appending `leafHashes` at positions startIndex, startIndex+1, …:
 * each leaf (level 0), then every ancestor whose range that leaf closes, in append order. A left
 * sibling made earlier in this batch is kept in memory; `read` is asked only for siblings stored
 * before the batch, which lie entirely left of startIndex (at most one per level).
 */
export function completedSubtrees(
  startIndex: number,
  leafHashes: readonly Uint8Array[],
  read: SubtreeReader,
): Array<SubtreeCoordinate & { hash: Uint8Array }> {
  checkTreeSize(startIndex);
  if (!isCount(startIndex + leafHashes.length)) throw new RangeError('tree would exceed 2^53-1 leaves');
  const out: Array<SubtreeCoordinate & { hash: Uint8Array }> = [];
  // Per level, the last even-indexed node completed in this batch: the left sibling of the next one.
  const pendingLeft: Array<{ index: number; hash: Uint8Array } | undefined> = [];
  for (let offset = 0; offset < leafHashes.length; offset++) {
    let level = 0;
    let index = startIndex + offset;
    let hash = leafHashes[offset] as Uint8Array;
    out.push({ level, index, hash });
    while (index % 2 === 1) {
      const pending = pendingLeft[level];
      const left =
        pending !== undefined && pending.index === index - 1 ? pending.hash : read(level, index - 1);
      hash = rfc9162NodeHash(left, hash);
      level += 1;
      index = (index - 1) / 2;
      out.push({ level, index, hash });
    }
    pendingLeft[level] = { index, hash };
  }
  return out;
}
