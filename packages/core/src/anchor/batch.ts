// Anchor batches: RFC 9162 leaves from bundle hashes, the batch root, every leaf's path, and path checks.
// DECISIONS D4 (RFC 9162 for anchor batches, never the audit construction) and D19 (one root per batch, a path per receipt).
import { fromHex, toHex } from '../encoding/index.ts';
import { parsePrefixedHash } from '../hash/index.ts';
import { rfc9162LeafHash, rfc9162NodeHash, verifyRfc9162Inclusion } from '../merkle/index.ts';
import { coreError, err, ok, type Result } from '../result.ts';

/** A built batch: its root and, per leaf in input order, the inclusion path (sibling nearest the leaf first). */
export interface AnchorBatchTree {
  /** RFC 9162 root, 64 lowercase hex. */
  readonly root: string;
  readonly size: number;
  /** `paths[i]` is the RFC 9162 PATH(i, D[size]) of leaf i, as lowercase hex. */
  readonly paths: readonly (readonly string[])[];
}

/** The 32 raw digest bytes of a `sha256:<64 hex>` bundle hash; undefined for any other spelling. */
export function bundleHashDigest(bundleHash: unknown): Uint8Array | undefined {
  const parsed = parsePrefixedHash(bundleHash, 'sha256');
  return parsed === undefined ? undefined : fromHex(parsed.hex);
}

/** The 32 raw digest bytes of a `sha3-256:<64 hex>` secondary bundle hash (SPEC.md, V2 anchoring); else undefined. */
export function secondaryHashDigest(hash: unknown): Uint8Array | undefined {
  const parsed = parsePrefixedHash(hash, 'sha3-256');
  return parsed === undefined ? undefined : fromHex(parsed.hex);
}

/** D19: a batch leaf is SHA-256(0x00 ‖ the 32 raw digest bytes) of the bundle hash. */
export function anchorLeafHash(bundleHash: string): Result<Uint8Array> {
  const digest = bundleHashDigest(bundleHash);
  if (digest === undefined) {
    return err(coreError('BUNDLE_SCHEMA_INVALID', 'bundle_hash must be sha256:<64 lowercase hex>'));
  }
  return ok(rfc9162LeafHash(digest));
}

/**
 * The leaf of any hash a batch anchors: the bundle hash (`sha256:`, as anchorLeafHash) or, for a V2 request
 * anchoring both (P51), its `sha3-256:` secondary hash, a leaf of its own in the same tree (SHA-256(0x00 ‖ its
 * 32 digest bytes)), so one root on chain commits both.
 */
export function anchoredLeafHash(anchoredHash: string): Result<Uint8Array> {
  const digest = bundleHashDigest(anchoredHash) ?? secondaryHashDigest(anchoredHash);
  if (digest === undefined) {
    return err(
      coreError('BUNDLE_SCHEMA_INVALID', 'an anchored hash must be sha256: or sha3-256: + 64 lowercase hex'),
    );
  }
  return ok(rfc9162LeafHash(digest));
}

/**
 * Builds the RFC 9162 tree of a batch bottom-up in O(n): at each level nodes pair left to right and a
 * last node without a partner moves up unchanged. That is exactly MTH's split at the largest power of
 * two (RFC 9162 §2.1.1), and each leaf's siblings, collected level by level, are its PATH.
 */
export function buildAnchorBatch(bundleHashes: readonly string[]): Result<AnchorBatchTree> {
  if (bundleHashes.length === 0)
    return err(coreError('BUNDLE_SCHEMA_INVALID', 'a batch needs at least one hash'));
  const leaves: Uint8Array[] = [];
  for (const hash of bundleHashes) {
    const leaf = anchoredLeafHash(hash);
    if (!leaf.ok) return leaf;
    leaves.push(leaf.value);
  }
  const paths: string[][] = leaves.map(() => []);
  // position[i]: index of leaf i's ancestor within the current level.
  const position = leaves.map((_, i) => i);
  let level = leaves;
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i + 1 < level.length; i += 2) {
      next.push(rfc9162NodeHash(level[i] as Uint8Array, level[i + 1] as Uint8Array));
    }
    if (level.length % 2 === 1) next.push(level[level.length - 1] as Uint8Array);
    for (let leaf = 0; leaf < position.length; leaf++) {
      const at = position[leaf] as number;
      const sibling = at % 2 === 0 ? at + 1 : at - 1;
      if (sibling < level.length) (paths[leaf] as string[]).push(toHex(level[sibling] as Uint8Array));
      position[leaf] = Math.floor(at / 2);
    }
    level = next;
  }
  return ok({ root: toHex(level[0] as Uint8Array), size: leaves.length, paths });
}

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * True when `bundleHash` is leaf `leafIndex` of a batch of `batchSize` leaves whose root is `rootHex`,
 * by the RFC 9162 path `pathHex` (exact length required). Malformed input is false, never a throw.
 */
export function verifyAnchorInclusion(
  bundleHash: string,
  leafIndex: number,
  batchSize: number,
  pathHex: readonly string[],
  rootHex: string,
): boolean {
  const leaf = anchoredLeafHash(bundleHash);
  if (!leaf.ok || typeof rootHex !== 'string' || !HEX64.test(rootHex) || !Array.isArray(pathHex))
    return false;
  const path: Uint8Array[] = [];
  for (const step of pathHex) {
    if (typeof step !== 'string' || !HEX64.test(step)) return false;
    path.push(fromHex(step) as Uint8Array);
  }
  return verifyRfc9162Inclusion(leaf.value, leafIndex, batchSize, path, fromHex(rootHex) as Uint8Array);
}
