// Builder output verifies with the matching verifier settings in every combination, and the tier
// the verifier resolves is exactly the requested one. DECISIONS D1, D5, D6, D9, D10, D11.
import { describe, expect, it } from 'vitest';
import { selectCryptoBackend } from '../../crypto/index.ts';
import { modeForTier, SECURITY_TIERS } from '../../policy/index.ts';
import type { ProfileName } from '../../profile.ts';
import { computeBundleHash, createVerifier } from '../index.ts';
import type { SecurityTier, VerifierOptions } from '../types.ts';
import { buildSignedBundle, generateBundleKeys } from './index.ts';
import type { BundleShape } from './types.ts';

const backend = selectCryptoBackend();
const keys = { principal: generateBundleKeys(backend), agent: generateBundleKeys(backend) };
const NOW = new Date('2026-05-01T12:00:00.000Z');
const clock = () => new Date(NOW.getTime() + 60_000);

function verify(signed_bundle: unknown, options: VerifierOptions) {
  const verifier = createVerifier({ clock, backend, ...options });
  if (!verifier.ok) throw new Error(verifier.error.message);
  return verifier.value.verify({ signed_bundle });
}

describe('built V2 bundles verify with the matching verifier settings', () => {
  const cases: Array<[ProfileName, BundleShape, SecurityTier, boolean, boolean, number]> = [];
  for (const profile of ['proto', 'dcp-ai'] as const)
    for (const shape of ['spec', 'sdk'] as const)
      for (const tier of SECURITY_TIERS)
        for (const classicalOnly of [false, true])
          for (const dualHash of [true, false])
            cases.push([profile, shape, tier, classicalOnly, dualHash, 1 + (cases.length % 4)]);

  it.each(cases)(
    '%s %s %s classicalOnly=%s dualHash=%s entries=%i',
    (profile, shape, tier, classicalOnly, dualHash, entries) => {
      const built = buildSignedBundle({
        profile,
        shape,
        tier,
        classicalOnly,
        dualHash,
        entries,
        keys,
        backend,
        now: NOW,
      });
      const response = verify(built.signed_bundle, { profile, mode: modeForTier(tier) });
      expect(response.resolved_tier).toBe(tier);
      if (classicalOnly && (tier === 'elevated' || tier === 'maximum')) {
        // hybrid_required (D9): an Ed25519-only bundle cannot reach these tiers.
        expect(response.verified).toBe(false);
        expect(response.checks.pq_sig).toBe('fail');
        return;
      }
      expect(response.errors ?? []).toEqual([]);
      expect(response.verified).toBe(true);
      expect(response.version).toBe('2.0');
      const expectedPq = tier === 'routine' ? 'skipped' : classicalOnly ? 'absent' : 'pass';
      expect(response.checks.pq_sig).toBe(expectedPq);
      // One checkpoint at least (the last one closes the trail); none when Ed25519-only (D6).
      expect(response.checks.checkpoints).toBe(classicalOnly ? 'absent' : 'pass');
      expect(computeBundleHash(built.signed_bundle)).toEqual({ ok: true, value: built.bundleHash });
    },
  );

  it('the default verifier (hybrid_preferred) accepts default builds of every tier', () => {
    for (const tier of SECURITY_TIERS) {
      const built = buildSignedBundle({ tier, keys, backend, now: NOW, entries: 2 });
      const response = verify(built.signed_bundle, {});
      expect(response.verified).toBe(true);
      expect(response.resolved_tier).toBe(tier === 'routine' ? 'standard' : tier);
    }
  });

  it('a bundle signed under one profile fails under the other (contexts are signed bytes, D1)', () => {
    const built = buildSignedBundle({ profile: 'dcp-ai', keys, backend, now: NOW });
    expect(verify(built.signed_bundle, { profile: 'dcp-ai' }).verified).toBe(true);
    const response = verify(built.signed_bundle, { profile: 'proto' });
    expect(response.verified).toBe(false);
    expect(response.checks.classical_sig).toBe('fail');
  });
});

describe('built V1 bundles verify', () => {
  it.each(SECURITY_TIERS)('%s', (tier) => {
    const built = buildSignedBundle({ version: '1.0', tier, entries: 3, keys, backend, now: NOW });
    const response = verify(built.signed_bundle, {});
    expect(response.errors ?? []).toEqual([]);
    expect(response.verified).toBe(true);
    expect(response.version).toBe('1.0');
  });
});
