// P62: bundle_hash_secondary is SHA3-256 of exactly the canonical bytes bundle_hash (SHA-256) covers; the builder,
// computeBundleHashes and the verifier's analysis give the same pair.
import { describe, expect, it } from 'vitest';
import { canonicalBytesV1, canonicalBytesV2 } from '../canonical/index.ts';
import { hexDigest } from '../hash/index.ts';
import { buildSignedBundle } from './build/index.ts';
import { computeBundleHashes } from './bundle-hashes.ts';
import { makeVerifier } from './test-support.ts';

describe('bundleHashSecondary (P62)', () => {
  it('is SHA3-256 of the bytes bundleHash covers, for V1 and V2, and what computeBundleHashes gives', () => {
    for (const version of ['1.0', '2.0'] as const) {
      const built = buildSignedBundle({ version, entries: 2 });
      const again = computeBundleHashes(built.signed_bundle);
      expect(again).toEqual({
        ok: true,
        value: { bundleHash: built.bundleHash, bundleHashSecondary: built.bundleHashSecondary },
      });
      const bytes =
        version === '1.0'
          ? canonicalBytesV1(built.signed_bundle['bundle'])
          : canonicalBytesV2(built.signed_bundle);
      if (!bytes.ok) throw new Error(bytes.error.message);
      expect(built.bundleHashSecondary).toBe(`sha3-256:${hexDigest('sha3-256', bytes.value)}`);
      expect(built.bundleHash).toBe(`sha256:${hexDigest('sha256', bytes.value)}`);
      const analysis = makeVerifier({ allowV1Bundles: true }).analyze(
        { signed_bundle: built.signed_bundle },
        { bundleHashSecondary: true },
      );
      expect(analysis.bundleHashSecondary).toBe(built.bundleHashSecondary);
    }
  });

  it('is an error for what is not a V1 or V2 signed bundle', () => {
    expect(computeBundleHashes({ bundle: {} }).ok).toBe(false);
    expect(computeBundleHashes('x').ok).toBe(false);
  });
});
