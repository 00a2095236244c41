// The protocol's audit-root Merkle construction: hex leaves used as-is, node = H(left ‖ right), odd node duplicated.
// PROTOCOL §2.2, DECISIONS D4 (kept for compatibility; the [a,b,c] = [a,b,c,c] ambiguity is closed by checking counts).
import { fromHex, toHex } from '../encoding/index.ts';
import { digestPair, type HashAlg, isHashAlg } from '../hash/digest.ts';
import { isBareHex64 } from '../hash/prefixed.ts';

/**
 * Root (bare lowercase hex) over leaf digests given as 64 lowercase hex. Leaves are not re-hashed
 * and carry no prefix byte; an odd level duplicates its last node; one leaf is its own root; leaves
 * and nodes use the same family `alg`. Undefined for an empty list or any malformed leaf (the
 * callers decide what an empty audit trail means, PROTOCOL §2.2).
 */
export function protocolMerkleRoot(alg: HashAlg, leavesHex: readonly string[]): string | undefined {
  if (!isHashAlg(alg) || !Array.isArray(leavesHex) || leavesHex.length === 0) return undefined;
  const leaves: Uint8Array[] = [];
  for (const leaf of leavesHex) {
    const bytes = isBareHex64(leaf) ? fromHex(leaf) : undefined;
    if (bytes === undefined) return undefined;
    leaves.push(bytes);
  }
  return toHex(protocolMerkleRootOfDigests(alg, leaves));
}

/**
 * The same root over leaves already held as digests (32 bytes each, at least one), as bytes: for a
 * caller that decoded its leaves once and needs several roots over them.
 */
export function protocolMerkleRootOfDigests(alg: HashAlg, leaves: readonly Uint8Array[]): Uint8Array {
  return rootOfLevels(protocolMerkleLevels(alg, leaves));
}

/** The root node of `protocolMerkleLevels`' tree: the one node of its last level. */
export function rootOfLevels(levels: readonly (readonly Uint8Array[])[]): Uint8Array {
  return (levels[levels.length - 1] as readonly Uint8Array[])[0] as Uint8Array;
}

/**
 * Every level of the same tree, leaves first and the root's level (one node) last. Node `i` of level `L`
 * with `(i + 1) * 2^L` at most the leaf count is the root of the perfect subtree over leaves
 * `i * 2^L .. (i + 1) * 2^L - 1` (no duplicated node below it): what a prefix's root is folded from.
 */
export function protocolMerkleLevels(alg: HashAlg, leaves: readonly Uint8Array[]): Uint8Array[][] {
  if (leaves.length === 0) throw new RangeError('a protocol Merkle root needs at least one leaf');
  const levels: Uint8Array[][] = [[...leaves]];
  let level = levels[0] as Uint8Array[];
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i] as Uint8Array;
      const right = level[i + 1] ?? left;
      next.push(digestPair(alg, left, right));
    }
    levels.push(next);
    level = next;
  }
  return levels;
}
