// A bundle's two anchorable hashes from the same canonical bytes: `bundle_hash` (SHA-256) and
// `bundle_hash_secondary` (SHA3-256). SPEC.md "Anchoring of V2" names the second without defining it; P62 does.
import { type CanonicalMemo, canonicalBytesV1, canonicalizeV2 } from '../canonical/index.ts';
import { type HashAlg, hexDigest, hexDigestsCanonicalV2, prefixedHash } from '../hash/index.ts';
import { coreError, err, ok, type Result } from '../result.ts';
import { detectBundleVersion } from './detect.ts';
import { isRecord, prop } from './json.ts';

export interface BundleHashes {
  /** `sha256:` + SHA-256 of the canonical bytes (V1: of the bundle; V2: of jcs({bundle, signature})). */
  readonly bundleHash: string;
  /** P62: `sha3-256:` + SHA3-256 (FIPS 202) of exactly the bytes `bundleHash` covers. */
  readonly bundleHashSecondary: string;
}

/** P62: the secondary hash of the canonical bytes (or UTF-8 text) a bundle hash covers. */
export function secondaryBundleHash(canonical: Uint8Array | string): string {
  return prefixedHash('sha3-256', hexDigest('sha3-256', canonical));
}

/** Both hashes of the same canonical bytes (or UTF-8 text). */
export function bundleHashesOf(canonical: Uint8Array | string): BundleHashes {
  return {
    bundleHash: prefixedHash('sha256', hexDigest('sha256', canonical)),
    bundleHashSecondary: secondaryBundleHash(canonical),
  };
}

/** dcp-jcs-v1 text of `{bundle, signature}` of a V2 signed bundle: what the V2 bundle hashes cover (PROTOCOL §8.3). */
export function canonicalSignedV2(signed: unknown, memo?: CanonicalMemo): Result<string> {
  if (!isRecord(signed) || !isRecord(prop(signed, 'bundle')) || !isRecord(prop(signed, 'signature'))) {
    return err(coreError('BUNDLE_SCHEMA_INVALID', 'expected a signed bundle {bundle, signature}'));
  }
  return canonicalizeV2({ bundle: prop(signed, 'bundle'), signature: prop(signed, 'signature') }, memo);
}

/**
 * Hex digests of jcs({bundle, signature}) of a V2 signed bundle, one per algorithm, hashed as the canonical
 * text is written (P65): the parts already canonicalised in `memo` go in as their bytes, and no text of the
 * whole bundle is built.
 */
export function signedV2Digests(
  signed: unknown,
  algs: readonly HashAlg[],
  memo?: CanonicalMemo,
): Result<string[]> {
  if (!isRecord(signed) || !isRecord(prop(signed, 'bundle')) || !isRecord(prop(signed, 'signature'))) {
    return err(coreError('BUNDLE_SCHEMA_INVALID', 'expected a signed bundle {bundle, signature}'));
  }
  return hexDigestsCanonicalV2(
    algs,
    { bundle: prop(signed, 'bundle'), signature: prop(signed, 'signature') },
    memo,
  );
}

/** Both V2 hashes from one walk of the canonical form (P62, P65). */
export function signedV2BundleHashes(signed: unknown, memo?: CanonicalMemo): Result<BundleHashes> {
  const digests = signedV2Digests(signed, ['sha256', 'sha3-256'], memo);
  if (!digests.ok) return digests;
  const [sha256 = '', sha3 = ''] = digests.value;
  return ok({
    bundleHash: prefixedHash('sha256', sha256),
    bundleHashSecondary: prefixedHash('sha3-256', sha3),
  });
}

/**
 * Both anchorable hashes of a V1 or V2 signed bundle, recomputed from its content (never read from it):
 * V1 over the V1-canonical `bundle` (what `signature.bundle_hash` covers, PROTOCOL §5.2), V2 over
 * jcs({bundle, signature}). The builder, `proto hash` and the verifiers all use this one definition (P62).
 */
export function computeBundleHashes(signed: unknown): Result<BundleHashes> {
  const version = detectBundleVersion(signed);
  if (version === '1.0') {
    const bytes = canonicalBytesV1(prop(signed, 'bundle'));
    return bytes.ok ? ok(bundleHashesOf(bytes.value)) : bytes;
  }
  if (version !== '2.0') {
    return err(coreError('BUNDLE_SCHEMA_INVALID', 'expected a V1 or V2 signed bundle {bundle, signature}'));
  }
  return signedV2BundleHashes(signed);
}
