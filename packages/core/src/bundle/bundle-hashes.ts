// A bundle's two anchorable hashes from the same canonical bytes: `bundle_hash` (SHA-256) and
// `bundle_hash_secondary` (SHA3-256). SPEC.md "Anchoring of V2" names the second without defining it; P62 does.
import { type CanonicalMemo, canonicalBytesV1, canonicalizeV2 } from '../canonical/index.ts';
import { type HashAlg, hexDigest, hexDigestsCanonicalV2, prefixedHash } from '../hash/index.ts';
import { coreError, err, ok, type Result } from '../result.ts';
import { detectBundleVersion } from './detect.ts';
import { isRecord, prop } from './json.ts';
import { splitUncoveredV2 } from './uncovered.ts';

export interface BundleHashes {
  /** `sha256:` + SHA-256 of the canonical bytes (V1: of the bundle; V2: of jcs({bundle, signature}), covered form, P247). */
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

/**
 * P247: what the V2 bundle hashes cover, the one definition: `{bundle, signature}` with the bundle's members that no
 * signature covers set aside (`splitUncoveredV2`), as the verifier reads it. For every SDK bundle (none has such a
 * member) this is PROTOCOL §8.3's computeBundleHash; a member added outside the signatures changes no hash.
 */
function hashedSignedV2(signed: unknown): Result<{ bundle: unknown; signature: unknown }> {
  const covered = splitUncoveredV2(signed).covered;
  if (!isRecord(covered) || !isRecord(prop(covered, 'bundle')) || !isRecord(prop(covered, 'signature'))) {
    return err(coreError('BUNDLE_SCHEMA_INVALID', 'expected a signed bundle {bundle, signature}'));
  }
  return ok({ bundle: prop(covered, 'bundle'), signature: prop(covered, 'signature') });
}

/** dcp-jcs-v1 text of what the V2 bundle hashes cover (`hashedSignedV2`, P247). */
export function canonicalSignedV2(signed: unknown, memo?: CanonicalMemo): Result<string> {
  const subject = hashedSignedV2(signed);
  return subject.ok ? canonicalizeV2(subject.value, memo) : subject;
}

/**
 * Hex digests of what the V2 bundle hashes cover (`hashedSignedV2`, P247), one per algorithm, hashed as the
 * canonical text is written (P65): the parts already canonicalised in `memo` go in as their bytes, and no text of
 * the whole bundle is built.
 */
export function signedV2Digests(
  signed: unknown,
  algs: readonly HashAlg[],
  memo?: CanonicalMemo,
): Result<string[]> {
  const subject = hashedSignedV2(signed);
  return subject.ok ? hexDigestsCanonicalV2(algs, subject.value, memo) : subject;
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
 * jcs({bundle, signature}) of the covered form (P247). The builder, `proto hash` and the verifiers all use this one
 * definition (P62); the console's `bundleHashOf` repeats it in the browser.
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
