// Tests for the protocol's audit-root Merkle construction, including the duplicate-last collision D4 documents.
// PROTOCOL §2.2, DECISIONS D4.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../encoding/index.ts';
import { type HashAlg, hexDigest } from '../hash/index.ts';
import { protocolMerkleRoot, rfc9162Root } from './index.ts';

const leafHex = (alg: HashAlg, i: number): string => hexDigest(alg, `entry-${i}`);
const leavesHex = (alg: HashAlg, count: number): string[] =>
  Array.from({ length: count }, (_, i) => leafHex(alg, i));

/** H(raw(left) ‖ raw(right)) written out with node:crypto. */
function pair(alg: HashAlg, left: string, right: string): string {
  return createHash(alg)
    .update(Buffer.from(left + right, 'hex'))
    .digest('hex');
}

/** Reference: pair up each level, duplicating an odd last node. */
function referenceRoot(alg: HashAlg, leaves: readonly string[]): string {
  let level = [...leaves];
  while (level.length > 1) {
    const next: string[] = [];
    for (let i = 0; i < level.length; i += 2)
      next.push(pair(alg, level[i] as string, level[i + 1] ?? (level[i] as string)));
    level = next;
  }
  return level[0] as string;
}

describe('protocolMerkleRoot', () => {
  it.each(['sha256', 'sha3-256'] as const)('%s: one leaf is its own root, no hashing', (alg) => {
    const leaf = leafHex(alg, 0);
    expect(protocolMerkleRoot(alg, [leaf])).toBe(leaf);
  });

  it.each(['sha256', 'sha3-256'] as const)('%s: small trees by hand (2, 3 and 4 leaves)', (alg) => {
    const [a, b, c, d] = leavesHex(alg, 4) as [string, string, string, string];
    expect(protocolMerkleRoot(alg, [a, b])).toBe(pair(alg, a, b));
    expect(protocolMerkleRoot(alg, [a, b, c])).toBe(pair(alg, pair(alg, a, b), pair(alg, c, c)));
    expect(protocolMerkleRoot(alg, [a, b, c, d])).toBe(pair(alg, pair(alg, a, b), pair(alg, c, d)));
  });

  it.each(['sha256', 'sha3-256'] as const)('%s: equals the reference for 1..40 leaves', (alg) => {
    for (let n = 1; n <= 40; n++) {
      const leaves = leavesHex(alg, n);
      expect(protocolMerkleRoot(alg, leaves)).toBe(referenceRoot(alg, leaves));
    }
  });

  it('uses the same family for inner nodes as for leaves', () => {
    const leaves = leavesHex('sha256', 2);
    expect(protocolMerkleRoot('sha3-256', leaves)).toBe(
      pair('sha3-256', leaves[0] as string, leaves[1] as string),
    );
    expect(protocolMerkleRoot('sha3-256', leaves)).not.toBe(protocolMerkleRoot('sha256', leaves));
  });

  it('D4: duplicating the last node makes [a,b,c] and [a,b,c,c] share a root (CVE-2012-2459), so counts must be checked', () => {
    for (const alg of ['sha256', 'sha3-256'] as const) {
      const [a, b, c, d, e] = leavesHex(alg, 5) as [string, string, string, string, string];
      expect(protocolMerkleRoot(alg, [a, b, c])).toBe(protocolMerkleRoot(alg, [a, b, c, c]));
      expect(protocolMerkleRoot(alg, [a, b, c, d, e])).toBe(protocolMerkleRoot(alg, [a, b, c, d, e, e]));
      // RFC 9162 (the log's construction) has no such ambiguity.
      const bytes = [a, b, c].map((h) => fromHex(h) as Uint8Array);
      expect(toHex(rfc9162Root(bytes))).not.toBe(toHex(rfc9162Root([...bytes, bytes[2] as Uint8Array])));
    }
  });

  it('differs from the RFC 9162 root over the same hashes (D4: never mixed)', () => {
    const leaves = leavesHex('sha256', 4);
    const rfc = toHex(rfc9162Root(leaves.map((h) => fromHex(h) as Uint8Array)));
    expect(protocolMerkleRoot('sha256', leaves)).not.toBe(rfc);
  });

  it('returns undefined for an empty list or a malformed leaf', () => {
    const good = leafHex('sha256', 0);
    expect(protocolMerkleRoot('sha256', [])).toBeUndefined();
    for (const bad of [
      good.toUpperCase(),
      `sha256:${good}`,
      good.slice(2),
      `${good}00`,
      '',
      'GENESIS',
      42 as unknown as string,
      null as unknown as string,
    ]) {
      expect(protocolMerkleRoot('sha256', [good, bad])).toBeUndefined();
      expect(protocolMerkleRoot('sha256', [bad])).toBeUndefined();
    }
    expect(protocolMerkleRoot('md5' as HashAlg, [good])).toBeUndefined();
    expect(protocolMerkleRoot('sha256', 'not a list' as unknown as string[])).toBeUndefined();
  });
});
