// Offline checks against checkpoints: a bundle_hash included at an index, and two checkpoints consistent.
// DECISIONS D18 (leaf input = the 32 raw bytes of bundle_hash; RFC 9162 proofs), SPEC.md "Transparency log service".
import { decodeBase64Strict, fromHex, toHex } from '../encoding/index.ts';
import { parsePrefixedHash } from '../hash/index.ts';
import { rfc9162LeafHash, verifyRfc9162Consistency, verifyRfc9162Inclusion } from '../merkle/index.ts';
import { type CoreError, coreError, err, ok, type Result } from '../result.ts';

/** What a proof is checked against: a tree size and its root (a LogCheckpoint satisfies it). */
export interface LogTreeHead {
  readonly size: number;
  readonly root: Uint8Array;
  readonly origin?: string;
}

const malformed = (message: string): CoreError => coreError('BUNDLE_SCHEMA_INVALID', message);

/** D18: the leaf input is the 32-byte SHA-256 digest named by `sha256:<64 lowercase hex>`. */
export function tlogLeafInput(bundleHash: unknown): Result<Uint8Array> {
  const parsed = parsePrefixedHash(bundleHash, 'sha256');
  if (parsed === undefined) return err(malformed('bundle_hash must be sha256:<64 lowercase hex>'));
  return ok(fromHex(parsed.hex) as Uint8Array);
}

/** RFC 9162 leaf hash of a bundle_hash: SHA-256(0x00 ‖ digest). */
export function tlogLeafHash(bundleHash: unknown): Result<Uint8Array> {
  const input = tlogLeafInput(bundleHash);
  return input.ok ? ok(rfc9162LeafHash(input.value)) : input;
}

/**
 * A list of 32-byte hashes given as Uint8Arrays, lowercase hex (our JSON) or base64 (C2SP text).
 * Strings are read as hex when they are 64 characters, else as strict base64.
 */
export function parseTlogHashList(list: unknown, what = 'proof'): Result<Uint8Array[]> {
  if (!Array.isArray(list)) return err(malformed(`${what} must be an array of hashes`));
  const out: Uint8Array[] = [];
  for (const item of list) {
    let bytes: Uint8Array | undefined;
    if (item instanceof Uint8Array) bytes = item;
    else if (typeof item === 'string') bytes = item.length === 64 ? fromHex(item) : decodeBase64Strict(item);
    if (bytes === undefined || bytes.byteLength !== 32) {
      return err(malformed(`${what} entries must be 32-byte hashes (lowercase hex or base64)`));
    }
    out.push(bytes);
  }
  return ok(out);
}

export interface TlogInclusionCheck {
  readonly bundleHash: string;
  readonly index: number;
  /** Sibling hashes, leaf side first, as returned by GET /proof/:log_index?tree_size=<checkpoint size>. */
  readonly proof: readonly (Uint8Array | string)[];
}

export interface TlogInclusionVerified {
  readonly index: number;
  readonly treeSize: number;
  readonly leafHash: string;
  readonly root: string;
}

/**
 * Checks that `bundleHash` is the leaf at `index` of the tree `head` names. The proof must have
 * exactly the length RFC 9162 gives for (index, size). Never throws.
 */
export function verifyTlogInclusion(
  head: LogTreeHead,
  check: TlogInclusionCheck,
): Result<TlogInclusionVerified> {
  const leafHash = tlogLeafHash(check.bundleHash);
  if (!leafHash.ok) return leafHash;
  if (!Number.isSafeInteger(check.index) || check.index < 0)
    return err(malformed('index must be a non-negative integer'));
  if (!Number.isSafeInteger(head.size) || !(head.root instanceof Uint8Array)) {
    return err(malformed('tree head must have an integer size and a root'));
  }
  if (check.index >= head.size) {
    return err(malformed(`index ${check.index} is outside the checkpoint's tree of size ${head.size}`));
  }
  const proof = parseTlogHashList(check.proof);
  if (!proof.ok) return proof;
  if (!verifyRfc9162Inclusion(leafHash.value, check.index, head.size, proof.value, head.root)) {
    return err(
      coreError(
        'MERKLE_ROOT_MISMATCH',
        `inclusion proof for index ${check.index} does not lead to the root of size ${head.size}`,
      ),
    );
  }
  return ok({
    index: check.index,
    treeSize: head.size,
    leafHash: toHex(leafHash.value),
    root: toHex(head.root),
  });
}

/**
 * Checks that `newer` extends `older` (RFC 9162 consistency proof from older.size to newer.size).
 * Equal sizes need equal roots and an empty proof; origins, when both are known, must match.
 */
export function verifyTlogConsistency(
  older: LogTreeHead,
  newer: LogTreeHead,
  proof: readonly (Uint8Array | string)[],
): Result<{ readonly oldSize: number; readonly newSize: number }> {
  if (older.origin !== undefined && newer.origin !== undefined && older.origin !== newer.origin) {
    return err(malformed(`checkpoints come from different logs (${older.origin}, ${newer.origin})`));
  }
  if (!Number.isSafeInteger(older.size) || !Number.isSafeInteger(newer.size)) {
    return err(malformed('tree sizes must be integers'));
  }
  if (older.size > newer.size) {
    return err(
      malformed(`older checkpoint (size ${older.size}) is larger than the newer one (${newer.size})`),
    );
  }
  const hashes = parseTlogHashList(proof, 'consistency proof');
  if (!hashes.ok) return hashes;
  if (!verifyRfc9162Consistency(older.size, newer.size, older.root, newer.root, hashes.value)) {
    return err(
      coreError(
        'MERKLE_ROOT_MISMATCH',
        `tree of size ${newer.size} is not consistent with the tree of size ${older.size}`,
      ),
    );
  }
  return ok({ oldSize: older.size, newSize: newer.size });
}
