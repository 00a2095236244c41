// A prefix's root folded from the full tree's levels equals the protocol Merkle root of the same leaves.
// PROTOCOL §2.2 (odd node duplicated); DECISIONS D6 (SPEC.md checkpoint roots over the first N entries).
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../../encoding/index.ts';
import { hexDigest } from '../../hash/index.ts';
import { protocolMerkleRoot } from '../../merkle/index.ts';
import { protocolMerkleLevels } from '../../merkle/protocol-tree.ts';
import { prefixRootOfLevels } from './merkle-prefix.ts';

describe('prefixRootOfLevels', () => {
  it.each(['sha256', 'sha3-256'] as const)(
    'matches protocolMerkleRoot(%s) for every prefix of 1..70 leaves',
    (alg) => {
      const hex = Array.from({ length: 70 }, (_, i) => hexDigest(alg, `leaf ${i}`));
      const leaves = hex.map((h) => fromHex(h) as Uint8Array);
      // Trees of every size, so that the full tree's duplicated right edge is met at every position.
      for (let total = 1; total <= leaves.length; total++) {
        const levels = protocolMerkleLevels(alg, leaves.slice(0, total));
        expect(levels[levels.length - 1]?.length).toBe(1);
        for (let count = 1; count <= total; count++)
          expect(toHex(prefixRootOfLevels(alg, levels, count))).toBe(
            protocolMerkleRoot(alg, hex.slice(0, count)),
          );
      }
    },
  );

  it('refuses a prefix of no leaves or of more leaves than the tree holds', () => {
    const leaves = [0, 1, 2].map((i) => fromHex(hexDigest('sha256', `leaf ${i}`)) as Uint8Array);
    const levels = protocolMerkleLevels('sha256', leaves);
    expect(() => prefixRootOfLevels('sha256', levels, 0)).toThrow(RangeError);
    expect(() => prefixRootOfLevels('sha256', levels, 4)).toThrow(RangeError);
  });
});
