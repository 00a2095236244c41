// Protocol Merkle roots over prefixes of the audit leaves, O(log n) hashes each from the full tree's levels.
// PROTOCOL §2.2 (odd node duplicated, no prefixes); DECISIONS D6 (SPEC.md checkpoints: roots of the first N entries).
import { digestPair, type HashAlg } from '../../hash/index.ts';

/**
 * Root (digest bytes) of the first `count` leaves (1 ≤ count ≤ leaf count) from the levels of the tree over
 * all of them (`protocolMerkleLevels`). The first `count` leaves split into one perfect subtree per set
 * bit of `count` (a binary counter), each a node of those levels already (bit `L`: node `(count >> L) - 1`
 * of level `L`), so only their fold is hashed, none of them again (P128). The odd-node rule folds the way
 * the level-by-level construction does: the smallest subtree is the last node of its level, so it is
 * paired with itself up to the level of the next subtree to its left, which then becomes its left sibling.
 */
export function prefixRootOfLevels(
  alg: HashAlg,
  levels: readonly (readonly Uint8Array[])[],
  count: number,
): Uint8Array {
  const leaves = levels[0]?.length ?? 0;
  if (!Number.isSafeInteger(count) || count < 1 || count > leaves)
    throw new RangeError(`no prefix of ${count} leaves in a tree of ${leaves}`);
  let current: Uint8Array | undefined;
  let currentLevel = 0;
  for (let level = 0; count >> level !== 0; level++) {
    if (((count >> level) & 1) === 0) continue;
    const node = levels[level]?.[(count >> level) - 1] as Uint8Array;
    if (current === undefined) {
      current = node;
      currentLevel = level;
      continue;
    }
    while (currentLevel < level) {
      current = digestPair(alg, current, current);
      currentLevel++;
    }
    current = digestPair(alg, node, current);
    currentLevel++;
  }
  // A node of `levels` itself when `count` is a power of two: read it, never write it.
  return current as Uint8Array;
}
