// P74: the bundle's SHA3-256 hash (P62) costs a second hash of the whole canonical bundle, so an analysis
// computes it only when asked. Observed at node:crypto itself: every SHA3-256 digest taken (one-shot or
// streamed) is recorded with the number of bytes it covered, and none may cover the whole bundle unasked.
import { describe, expect, it, vi } from 'vitest';

const sha3Digests = vi.hoisted(() => [] as number[]);

vi.mock('node:crypto', async (importOriginal) => {
  const { recordingDigests } = await import('./testing/digest-recorder.ts');
  return recordingDigests(await importOriginal<typeof import('node:crypto')>(), 'sha3-256', sha3Digests);
});

const { canonicalBytesV1, canonicalBytesV2 } = await import('../canonical/index.ts');
const { buildSignedBundle } = await import('./build/index.ts');
const { makeVerifier } = await import('./test-support.ts');

const cases = [
  { name: 'V1', version: '1.0', tier: 'standard' },
  { name: 'V2 standard', version: '2.0', tier: 'standard' },
  { name: 'V2 maximum (dual hash chain, checkpoints)', version: '2.0', tier: 'maximum' },
] as const;

describe('the SHA3-256 bundle hash is computed only when asked for (P74)', () => {
  const verifier = makeVerifier({ allowV1Bundles: true });
  for (const c of cases) {
    it(`${c.name}: none unasked, one over the whole canonical bundle when asked, the same verdict`, () => {
      const built = buildSignedBundle({ version: c.version, tier: c.tier, entries: 4 });
      const bytes =
        c.version === '1.0'
          ? canonicalBytesV1(built.signed_bundle['bundle'])
          : canonicalBytesV2(built.signed_bundle);
      if (!bytes.ok) throw new Error(bytes.error.message);
      const whole = bytes.value.byteLength;
      const request = { signed_bundle: built.signed_bundle };

      sha3Digests.length = 0;
      const plain = verifier.analyze(request);
      expect(sha3Digests.filter((n) => n >= whole)).toEqual([]);
      // P123: V2's SHA-256 one is on demand too; V1's is what its signature covers, always there.
      expect(plain.bundleHash).toBe(c.version === '1.0' ? built.bundleHash : undefined);
      expect(plain.bundleHashSecondary).toBeUndefined();

      sha3Digests.length = 0;
      const asked = verifier.analyze(request, { bundleHashSecondary: true });
      expect(asked.bundleHashSecondary).toBe(built.bundleHashSecondary);
      expect(asked.bundleHash).toBe(built.bundleHash);
      expect(sha3Digests.filter((n) => n >= whole)).toEqual([whole]);

      const { bundleHashSecondary: _secondary, bundleHash: _hash, ...rest } = asked;
      const { bundleHash: _plainHash, ...plainRest } = plain;
      expect(rest).toEqual(plainRest);
      expect(plain.checks).toMatchObject({ schema: 'pass', hash_chain: 'pass' });
    });
  }
});
