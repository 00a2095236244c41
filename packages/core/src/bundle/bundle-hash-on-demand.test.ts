// P123: a V2 analysis hashes the whole canonical bundle with SHA-256 only when asked (the verdict never reads
// that hash). Observed at node:crypto itself, as P74's test observes SHA3-256: every SHA-256 digest taken
// (one-shot or streamed) is recorded with the number of bytes it covered.
import { describe, expect, it, vi } from 'vitest';

const sha256Digests = vi.hoisted(() => [] as number[]);

vi.mock('node:crypto', async (importOriginal) => {
  const { recordingDigests } = await import('./testing/digest-recorder.ts');
  return recordingDigests(await importOriginal<typeof import('node:crypto')>(), 'sha256', sha256Digests);
});

const { canonicalBytesV1, canonicalBytesV2 } = await import('../canonical/index.ts');
const { buildSignedBundle } = await import('./build/index.ts');
const { computeBundleHashes } = await import('./bundle-hashes.ts');
const { makeVerifier } = await import('./test-support.ts');

const v2Cases = [
  { name: 'V2 standard', tier: 'standard' },
  { name: 'V2 maximum (dual hash chain, checkpoints)', tier: 'maximum' },
] as const;

const wholeOf = (bytes: { ok: boolean; value?: Uint8Array; error?: { message: string } }): number => {
  if (!bytes.ok || bytes.value === undefined) throw new Error(bytes.error?.message);
  return bytes.value.byteLength;
};

describe('the V2 SHA-256 bundle hash is computed only when asked for (P123)', () => {
  const verifier = makeVerifier({ allowV1Bundles: true });
  for (const c of v2Cases) {
    it(`${c.name}: none unasked; asked, one digest of the whole bundle, computeBundleHashes' value`, () => {
      const built = buildSignedBundle({ version: '2.0', tier: c.tier, entries: 4 });
      const whole = wholeOf(canonicalBytesV2(built.signed_bundle));
      const request = { signed_bundle: built.signed_bundle };
      const expected = computeBundleHashes(built.signed_bundle);
      if (!expected.ok) throw new Error(expected.error.message);

      sha256Digests.length = 0;
      const plain = verifier.analyze(request);
      expect(sha256Digests.filter((n) => n >= whole)).toEqual([]);
      expect(plain.bundleHash).toBeUndefined();
      expect(plain.bundleHashSecondary).toBeUndefined();

      sha256Digests.length = 0;
      const asked = verifier.analyze(request, { bundleHash: true });
      expect(sha256Digests.filter((n) => n >= whole)).toEqual([whole]);
      expect(asked.bundleHash).toBe(expected.value.bundleHash);
      expect(asked.bundleHash).toBe(built.bundleHash);
      expect(asked.bundleHashSecondary).toBeUndefined();

      // The secondary comes with the primary, from the same walk.
      sha256Digests.length = 0;
      const both = verifier.analyze(request, { bundleHashSecondary: true });
      expect(sha256Digests.filter((n) => n >= whole)).toEqual([whole]);
      expect(both).toMatchObject(expected.value);

      const { bundleHash: _hash, ...rest } = asked;
      expect(rest).toEqual(plain);
      expect(plain.checks).toMatchObject({ schema: 'pass', hash_chain: 'pass' });
      expect(verifier.finalize(plain, new Date()).verified).toBe(true);
    });
  }

  it('V1: the hash the V1 signature covers is always there (its check computes it)', () => {
    const built = buildSignedBundle({ version: '1.0', tier: 'standard', entries: 4 });
    const whole = wholeOf(canonicalBytesV1(built.signed_bundle['bundle']));
    sha256Digests.length = 0;
    const plain = verifier.analyze({ signed_bundle: built.signed_bundle });
    expect(plain.bundleHash).toBe(built.bundleHash);
    expect(sha256Digests.filter((n) => n >= whole)).toEqual([whole]);
  });
});
