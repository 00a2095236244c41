// Incremental protocol Merkle roots over growing prefixes of the audit leaves, O(log n) per root.
// PROTOCOL §2.2 (odd node duplicated, no prefixes); DECISIONS D6 (SPEC.md checkpoints: roots of the first N entries).
import { fromHex, toHex } from '../../encoding/index.ts';
import { digestPair, type HashAlg } from '../../hash/index.ts';

/**
 * Holds one perfect-subtree root per set bit of the leaf count (a binary counter), so the root of
 * the first n leaves needs only O(log n) hashes. The odd-node rule folds the way the level-by-level
 * construction does: the smallest subtree is the last node of its level, so it is paired with
 * itself up to the level of the next subtree to its left, which then becomes its left sibling.
 */
export class MerklePrefix {
  private readonly alg: HashAlg;
  /** frontier[level] = root of a perfect subtree of 2^level leaves, or undefined. */
  private readonly frontier: (Uint8Array | undefined)[] = [];
  private count = 0;

  constructor(alg: HashAlg) {
    this.alg = alg;
  }

  get size(): number {
    return this.count;
  }

  /** Appends a leaf given as 64 lowercase hex; false when it is not one. */
  push(leafHex: string): boolean {
    const leaf = fromHex(leafHex);
    if (leaf === undefined || leaf.length !== 32) return false;
    this.pushDigest(leaf);
    return true;
  }

  /** Appends a leaf already held as its 32 digest bytes. */
  pushDigest(leaf: Uint8Array): void {
    let carry: Uint8Array = leaf;
    let level = 0;
    for (;;) {
      const left = this.frontier[level];
      if (left === undefined) break;
      carry = digestPair(this.alg, left, carry);
      this.frontier[level] = undefined;
      level++;
    }
    this.frontier[level] = carry;
    this.count++;
  }

  /** Bare hex root of the leaves pushed so far; undefined when empty. */
  root(): string | undefined {
    let current: Uint8Array | undefined;
    let currentLevel = 0;
    for (let level = 0; level < this.frontier.length; level++) {
      const node = this.frontier[level];
      if (node === undefined) continue;
      if (current === undefined) {
        current = node;
        currentLevel = level;
        continue;
      }
      while (currentLevel < level) {
        current = digestPair(this.alg, current, current);
        currentLevel++;
      }
      current = digestPair(this.alg, node, current);
      currentLevel++;
    }
    return current === undefined ? undefined : toHex(current);
  }
}
