// The incremental prefix root equals the protocol Merkle root of the same leaves at every size.
// PROTOCOL §2.2 (odd node duplicated); DECISIONS D6 (SPEC.md checkpoint roots over the first N entries).
import { describe, expect, it } from 'vitest';
import { hexDigest } from '../../hash/index.ts';
import { protocolMerkleRoot } from '../../merkle/index.ts';
import { MerklePrefix } from './merkle-prefix.ts';

describe('MerklePrefix', () => {
  it.each(['sha256', 'sha3-256'] as const)('matches protocolMerkleRoot(%s) for 1..130 leaves', (alg) => {
    const leaves = Array.from({ length: 130 }, (_, i) => hexDigest(alg, `leaf ${i}`));
    const prefix = new MerklePrefix(alg);
    expect(prefix.root()).toBeUndefined();
    leaves.forEach((leaf, i) => {
      expect(prefix.push(leaf)).toBe(true);
      expect(prefix.size).toBe(i + 1);
      expect(prefix.root()).toBe(protocolMerkleRoot(alg, leaves.slice(0, i + 1)));
    });
  });

  it('refuses a leaf that is not 32 bytes of hex', () => {
    const prefix = new MerklePrefix('sha256');
    expect(prefix.push('abc')).toBe(false);
    expect(prefix.push('zz'.repeat(32))).toBe(false);
    expect(prefix.size).toBe(0);
  });
});
