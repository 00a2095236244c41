// A V2 bundle deeper than 64 as a whole is refused, though each part is within the limit (P219): an entry sits 4
// deep in jcs({bundle, signature}), so entries 62–64 deep hashed and verified while the bundle had no bundle hash.
import { describe, expect, it } from 'vitest';
import { canonicalizeV2 } from '../../canonical/index.ts';
import { type BundleKeySet, buildSignedBundle, generateBundleKeys } from '../build/index.ts';
import { computeBundleHashes } from '../bundle-hashes.ts';
import { a, backend, FIXED_NOW, type J, makeVerifier, o } from '../test-support.ts';

const KEYS: { principal: BundleKeySet; agent: BundleKeySet } = {
  principal: generateBundleKeys(backend),
  agent: generateBundleKeys(backend),
};

/** `levels` nested arrays around 0: `levels` deep in core's count (outermost = 1). */
function nested(levels: number): unknown {
  let value: unknown = 0;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

/**
 * A signed bundle built by core whose entry 1 is `depth` deep (its evidence holds the rest), everything signed
 * and chained over it. Past the whole bundle's limit the builder refuses to hash it after signing; the signed
 * bundle is taken from its last hook, as a producer without that refusal would send it.
 */
function withEntryDepth(depth: number): J {
  let signed: J | undefined;
  try {
    buildSignedBundle({
      now: FIXED_NOW,
      keys: KEYS,
      backend,
      tier: 'standard',
      entries: 3,
      hooks: {
        entry: (entry, i) => {
          if (i === 1) entry['evidence'] = { extra: nested(depth - 2) };
        },
        signedBundle: (s) => {
          signed = structuredClone(s) as J;
        },
      },
    });
  } catch {
    // The builder's own refusal (P219 keeps it): the bundle it signed is still the one under test.
  }
  if (signed === undefined) throw new Error('the builder signed nothing');
  return signed;
}

const entryOf = (signed: J, i: number) => a(o(signed['bundle'])['audit_entries'])[i];

describe('the whole V2 bundle within the depth limit (D2, P219)', () => {
  it('an entry 61 deep: verified, with the bundle hash computeBundleHashes gives', () => {
    const signed = withEntryDepth(61);
    expect(canonicalizeV2({ bundle: signed['bundle'], signature: signed['signature'] }).ok).toBe(true);
    const verifier = makeVerifier();
    const response = verifier.verify({ signed_bundle: signed });
    expect(response.error_details ?? [], JSON.stringify(response.error_details)).toEqual([]);
    expect(response.verified).toBe(true);
    const hashes = computeBundleHashes(signed);
    expect(hashes.ok).toBe(true);
    expect(verifier.analyze({ signed_bundle: signed }, { bundleHash: true }).bundleHash).toBe(
      hashes.ok ? hashes.value.bundleHash : '',
    );
  });

  for (const depth of [62, 63, 64]) {
    it(`an entry ${depth} deep, which hashes alone: schema fails with core's own refusal, no bundle hash`, () => {
      const signed = withEntryDepth(depth);
      expect(canonicalizeV2(entryOf(signed, 1)).ok).toBe(true);
      const refusal = canonicalizeV2({ bundle: signed['bundle'], signature: signed['signature'] });
      expect(refusal.ok).toBe(false);
      const reason = refusal.ok ? '' : refusal.error.message;
      expect(reason).toMatch(
        /^\$\.bundle\.audit_entries\[1\]\.evidence\.extra(\[0\])+: nesting depth exceeds 64$/,
      );
      const verifier = makeVerifier();
      const response = verifier.verify({ signed_bundle: signed });
      expect(response.verified).toBe(false);
      expect(response.checks.schema).toBe('fail');
      expect(response.error_details).toEqual([
        expect.objectContaining({
          code: expect.stringMatching(/-E001$/),
          check: 'schema',
          message: `signed bundle has no bundle hash: ${reason}`,
        }),
      ]);
      expect(computeBundleHashes(signed).ok).toBe(false);
    });
  }

  it('a bundle member no signature covers is set aside before the checks, and its depth with it', () => {
    // Issue 12: the verdict and the bundle hash are the covered form's, which does not hold `bundle.x_extra`.
    const uncovered = withEntryDepth(3);
    o(uncovered['bundle'])['x_extra'] = nested(100);
    const analysis = makeVerifier().analyze({ signed_bundle: uncovered }, { bundleHash: true });
    expect(analysis.checks.schema).toBe('pass');
    expect(analysis.bundleHash).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});
