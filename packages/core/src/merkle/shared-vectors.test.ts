// Shared upstream Merkle vectors: the V1 example's audit roots in both families (merkle_root, dual_merkle_roots).
// PROTOCOL §2.2 (golden roots), §5.2, §11; DECISIONS D4.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { canonicalBytesV1 } from '../canonical/index.ts';
import { type HashAlg, hexDigest, parsePrefixedHash } from '../hash/index.ts';
import { protocolMerkleRoot } from './index.ts';

const REPO_ROOT = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../..');
const SHARED = path.resolve(REPO_ROOT, '../shared/vectors');
const GOLDEN = path.join(SHARED, 'tests/conformance/v2/golden_vectors.json');
const BUNDLE = path.join(SHARED, 'tests/conformance/examples/citizenship_bundle.json');
const SIGNED = path.join(SHARED, 'tests/conformance/examples/citizenship_bundle.signed.json');

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8'));
}

interface Golden {
  v1_bundle_verification: { expected_merkle_root: string; audit_entry_hashes: string[] };
  dual_hash_vectors: {
    audit_entry_dual_hashes: Array<{ sha256: string; sha3_256: string }>;
    dual_merkle_roots: { sha256: string; sha3_256: string };
  };
}

/** Leaves of the V1 example: alg(V1 canonical entry), bare hex. */
function leavesOf(entries: readonly unknown[], alg: HashAlg): string[] {
  return entries.map((entry) => {
    const bytes = canonicalBytesV1(entry);
    if (!bytes.ok) throw new Error(bytes.error.message);
    return hexDigest(alg, bytes.value);
  });
}

const haveAll = existsSync(GOLDEN) && existsSync(BUNDLE) && existsSync(SIGNED);

describe.skipIf(!haveAll)('golden_vectors.json Merkle roots over the V1 example', () => {
  const golden = haveAll ? (readJson(GOLDEN) as Golden) : undefined;
  const entries = haveAll ? (readJson(BUNDLE) as { audit_entries: unknown[] }).audit_entries : [];
  const signed = haveAll
    ? (readJson(SIGNED) as { bundle: { audit_entries: unknown[] }; signature: { merkle_root: string } })
    : undefined;

  it('the signed bundle carries the same audit entries as citizenship_bundle.json', () => {
    expect(signed?.bundle.audit_entries).toEqual(entries);
    expect(entries).toHaveLength(2);
  });

  it('SHA-256 root equals expected_merkle_root and the signature’s merkle_root', () => {
    const leaves = leavesOf(entries, 'sha256');
    expect(leaves).toEqual(golden?.v1_bundle_verification.audit_entry_hashes);
    const root = protocolMerkleRoot('sha256', leaves);
    expect(root).toBe(golden?.dual_hash_vectors.dual_merkle_roots.sha256);
    expect(`sha256:${root}`).toBe(golden?.v1_bundle_verification.expected_merkle_root);
    expect(parsePrefixedHash(signed?.signature.merkle_root, 'sha256')?.hex).toBe(root);
  });

  it('SHA3-256 root over SHA3-256 leaves equals dual_merkle_roots.sha3_256', () => {
    const leaves = leavesOf(entries, 'sha3-256');
    expect(leaves).toEqual(golden?.dual_hash_vectors.audit_entry_dual_hashes.map((pair) => pair.sha3_256));
    expect(protocolMerkleRoot('sha3-256', leaves)).toBe(golden?.dual_hash_vectors.dual_merkle_roots.sha3_256);
  });

  it('the golden roots are also reproduced from the golden leaf lists alone', () => {
    const pairs = golden?.dual_hash_vectors.audit_entry_dual_hashes ?? [];
    expect(
      protocolMerkleRoot(
        'sha256',
        pairs.map((p) => p.sha256),
      ),
    ).toBe('b80928bc53f1adf75227dbfd240fff4c63fbe6bdb8c3717a1752ac9fce3aadce');
    expect(
      protocolMerkleRoot(
        'sha3-256',
        pairs.map((p) => p.sha3_256),
      ),
    ).toBe(golden?.dual_hash_vectors.dual_merkle_roots.sha3_256);
  });
});
