// Shape of an RFC 9162 tree: which leaf ranges a root or proof needs, and their split into perfect subtrees.
// RFC 9162 §2.1.1–2.1.4 (MTH, PATH, SUBPROOF), DECISIONS D4 and D18 (log and anchor batches store perfect subtrees).

/** Half-open leaf range [start, end). */
export interface LeafRange {
  readonly start: number;
  readonly end: number;
}

/** A node of a perfect subtree: the hash of leaves [index·2^level, (index+1)·2^level). */
export interface SubtreeCoordinate {
  readonly level: number;
  readonly index: number;
}

/** Tree sizes and indices are safe non-negative integers; arithmetic below avoids 32-bit bit operators. */
export function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

export function isPowerOfTwo(n: number): boolean {
  if (n < 1) return false;
  let k = 1;
  while (k < n) k *= 2;
  return k === n;
}

/** The largest power of two strictly below n (n ≥ 2): RFC 9162's split point k. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** Ranges whose tree hashes form the inclusion proof PATH(index, D[0:size]), leaf side first. */
export function inclusionRanges(index: number, size: number): LeafRange[] {
  const topDown: LeafRange[] = [];
  let lo = 0;
  let hi = size;
  while (hi - lo > 1) {
    const mid = lo + splitPoint(hi - lo);
    if (index < mid) {
      topDown.push({ start: mid, end: hi });
      hi = mid;
    } else {
      topDown.push({ start: lo, end: mid });
      lo = mid;
    }
  }
  return topDown.reverse();
}

/** Ranges whose tree hashes form PROOF(oldSize, D[0:newSize]) = SUBPROOF(m, D_n, true), for 0 < oldSize < newSize. */
export function consistencyRanges(oldSize: number, newSize: number): LeafRange[] {
  const topDown: LeafRange[] = [];
  let lo = 0;
  let hi = newSize;
  let oldRootKnown = true; // SUBPROOF's flag b: the verifier already holds MTH(D[0:m]) for this subtree
  while (oldSize !== hi) {
    const mid = lo + splitPoint(hi - lo);
    if (oldSize <= mid) {
      topDown.push({ start: mid, end: hi });
      hi = mid;
    } else {
      topDown.push({ start: lo, end: mid });
      lo = mid;
      oldRootKnown = false;
    }
  }
  if (!oldRootKnown) topDown.push({ start: lo, end: hi });
  return topDown.reverse();
}

/**
 * The perfect subtrees whose fold (right to left) is MTH of the range, largest first. Valid for
 * every range a root or proof uses: each starts at a multiple of a power of two at least its length.
 */
export function perfectSubtrees(range: LeafRange): SubtreeCoordinate[] {
  const out: SubtreeCoordinate[] = [];
  let position = range.start;
  while (position < range.end) {
    let size = 1;
    let level = 0;
    while (size * 2 <= range.end - position) {
      size *= 2;
      level += 1;
    }
    if (position % size !== 0)
      throw new Error(`internal: leaf range [${range.start}, ${range.end}) is not aligned`);
    out.push({ level, index: position / size });
    position += size;
  }
  return out;
}
