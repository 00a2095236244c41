// Our own Merkle vectors (packages/core/test-vectors/merkle-vectors.json): protocol roots for 1..9 leaves in both
// families and RFC 9162 roots and proofs for small trees; rewritten with UPDATE_VECTORS=1. PROTOCOL §2.2, RFC 9162, D4.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '../encoding/index.ts';
import { HASH_ALGS, type HashAlg, hexDigest } from '../hash/index.ts';
import {
  protocolMerkleRoot,
  rfc9162ConsistencyProof,
  rfc9162InclusionProof,
  rfc9162LeafHash,
  rfc9162Root,
  verifyRfc9162Consistency,
  verifyRfc9162Inclusion,
} from './index.ts';
import { referenceConsistency, referencePath, referenceRoot } from './test-support.ts';

const REPO_ROOT = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../..');
const FILE = path.join(REPO_ROOT, 'packages/core/test-vectors/merkle-vectors.json');
const UPDATE = process.env['UPDATE_VECTORS'] === '1';
const MAX_PROTOCOL_LEAVES = 9;
const MAX_RFC_LEAVES = 8;

interface ProtocolVector {
  readonly alg: HashAlg;
  readonly leaves: string[];
  readonly root: string;
}

interface MerkleVectorFile {
  readonly description: string;
  readonly protocol: ProtocolVector[];
  readonly rfc9162: {
    readonly leaf_data: string[];
    readonly leaf_hashes: string[];
    readonly roots: Array<{ size: number; root: string }>;
    readonly inclusion: Array<{ size: number; index: number; proof: string[] }>;
    readonly consistency: Array<{ old_size: number; new_size: number; proof: string[] }>;
  };
}

const hexAll = (list: readonly Uint8Array[]): string[] => list.map((h) => toHex(h));
const bytesAll = (list: readonly string[]): Uint8Array[] => list.map((h) => fromHex(h) as Uint8Array);

function generate(): MerkleVectorFile {
  const protocol: ProtocolVector[] = [];
  for (const alg of HASH_ALGS) {
    const all = Array.from({ length: MAX_PROTOCOL_LEAVES }, (_, i) => hexDigest(alg, `audit-entry-${i}`));
    for (let count = 1; count <= MAX_PROTOCOL_LEAVES; count++) {
      const leaves = all.slice(0, count);
      protocol.push({ alg, leaves, root: protocolMerkleRoot(alg, leaves) as string });
    }
  }
  const leafData = Array.from({ length: MAX_RFC_LEAVES }, (_, i) =>
    toHex(new TextEncoder().encode(`entry ${i}`)),
  );
  const leafHashes = leafData.map((d) => rfc9162LeafHash(fromHex(d) as Uint8Array));
  const roots = [];
  const inclusion = [];
  const consistency = [];
  for (let size = 0; size <= MAX_RFC_LEAVES; size++) {
    const tree = leafHashes.slice(0, size);
    roots.push({ size, root: toHex(rfc9162Root(tree)) });
    for (let index = 0; index < size; index++) {
      inclusion.push({ size, index, proof: hexAll(rfc9162InclusionProof(tree, index)) });
    }
    for (let oldSize = 1; oldSize < size; oldSize++) {
      consistency.push({
        old_size: oldSize,
        new_size: size,
        proof: hexAll(rfc9162ConsistencyProof(tree, oldSize)),
      });
    }
  }
  return {
    description:
      'Merkle vectors of this project (DECISIONS D4: two constructions, never mixed). protocol: PROTOCOL §2.2 audit roots — hex leaves used as-is, node = H(left ‖ right) in the same family, odd level duplicates its last node, one leaf is its own root. rfc9162: RFC 9162 §2.1 with SHA-256 — leaf_hashes[i] = SHA-256(0x00 ‖ leaf_data[i]), node = SHA-256(0x01 ‖ l ‖ r), roots for sizes 0..8 (size 0 = SHA-256 of the empty string), inclusion proofs for every index and consistency proofs for every 0 < old < new ≤ 8, over the first `size` / `new_size` leaves. All hex lowercase.',
    protocol,
    rfc9162: { leaf_data: leafData, leaf_hashes: hexAll(leafHashes), roots, inclusion, consistency },
  };
}

function writeVectors(): void {
  describe('merkle vectors (UPDATE_VECTORS=1)', () => {
    it('writes packages/core/test-vectors/merkle-vectors.json', () => {
      writeFileSync(FILE, `${JSON.stringify(generate(), null, 2)}\n`);
      expect(existsSync(FILE)).toBe(true);
    });
  });
}

function checkVectors(): void {
  describe('merkle vectors (packages/core/test-vectors/merkle-vectors.json)', () => {
    const stored: MerkleVectorFile = existsSync(FILE)
      ? (JSON.parse(readFileSync(FILE, 'utf8')) as MerkleVectorFile)
      : {
          description: '',
          protocol: [],
          rfc9162: { leaf_data: [], leaf_hashes: [], roots: [], inclusion: [], consistency: [] },
        };

    it('holds exactly what the generator produces', () => {
      expect(existsSync(FILE), `${FILE} is missing: run with UPDATE_VECTORS=1`).toBe(true);
      expect(stored).toEqual(generate());
    });

    it('protocol roots for 1..9 leaves in both families', () => {
      expect(stored.protocol).toHaveLength(2 * MAX_PROTOCOL_LEAVES);
      for (const vector of stored.protocol) {
        expect(protocolMerkleRoot(vector.alg, vector.leaves)).toBe(vector.root);
      }
    });

    it('RFC 9162 leaf hashes and roots, also against the reference', () => {
      const { leaf_data, leaf_hashes, roots } = stored.rfc9162;
      expect(leaf_data.map((d) => toHex(rfc9162LeafHash(fromHex(d) as Uint8Array)))).toEqual(leaf_hashes);
      const leaves = bytesAll(leaf_hashes);
      expect(roots).toHaveLength(MAX_RFC_LEAVES + 1);
      for (const { size, root } of roots) {
        expect(toHex(rfc9162Root(leaves.slice(0, size)))).toBe(root);
        expect(toHex(referenceRoot(leaves.slice(0, size)))).toBe(root);
      }
    });

    it('RFC 9162 inclusion proofs verify and match the reference', () => {
      const leaves = bytesAll(stored.rfc9162.leaf_hashes);
      const roots = stored.rfc9162.roots.map((r) => fromHex(r.root) as Uint8Array);
      expect(stored.rfc9162.inclusion).toHaveLength((MAX_RFC_LEAVES * (MAX_RFC_LEAVES + 1)) / 2);
      for (const { size, index, proof } of stored.rfc9162.inclusion) {
        expect(hexAll(referencePath(index, leaves.slice(0, size)))).toEqual(proof);
        const ok = verifyRfc9162Inclusion(
          leaves[index] as Uint8Array,
          index,
          size,
          bytesAll(proof),
          roots[size] as Uint8Array,
        );
        expect(ok).toBe(true);
      }
    });

    it('RFC 9162 consistency proofs verify and match the reference', () => {
      const leaves = bytesAll(stored.rfc9162.leaf_hashes);
      const roots = stored.rfc9162.roots.map((r) => fromHex(r.root) as Uint8Array);
      expect(stored.rfc9162.consistency).toHaveLength(((MAX_RFC_LEAVES - 1) * MAX_RFC_LEAVES) / 2);
      for (const { old_size, new_size, proof } of stored.rfc9162.consistency) {
        expect(hexAll(referenceConsistency(old_size, leaves.slice(0, new_size)))).toEqual(proof);
        const ok = verifyRfc9162Consistency(
          old_size,
          new_size,
          roots[old_size] as Uint8Array,
          roots[new_size] as Uint8Array,
          bytesAll(proof),
        );
        expect(ok).toBe(true);
      }
    });
  });
}

if (UPDATE) writeVectors();
else checkVectors();
