// The console's shared/covered.js is core's covered form (P247): the same bundle members, and the same bundle hash
// as core's computeBundleHashes for a bundle with members no signature covers. Loaded as the browser loads it.
import { createHash } from 'node:crypto';
import { canonicalizeV2, computeBundleHashes, V2_BUNDLE_MEMBERS } from '@proto/core';
import { uncoveredMemberBundle } from '@proto/core/testing';
import { describe, expect, it } from 'vitest';

const covered = (await import(new URL('../public/shared/covered.js', import.meta.url).href)) as {
  V2_COVERED_BUNDLE_MEMBERS: readonly string[];
  coveredBundleV2(bundle: Record<string, unknown>): Record<string, unknown>;
};

describe('covered.js (P247)', () => {
  it("lists core's covered V2 bundle members, no more, no fewer", () => {
    expect([...covered.V2_COVERED_BUNDLE_MEMBERS].sort()).toEqual([...V2_BUNDLE_MEMBERS].sort());
  });

  it("gives the bundle hash core gives a bundle with uncovered members: the bundle's as signed", () => {
    const fixture = uncoveredMemberBundle();
    const signed = fixture.withMembers as { bundle: Record<string, unknown>; signature: unknown };
    const text = canonicalizeV2({
      bundle: covered.coveredBundleV2(signed.bundle),
      signature: signed.signature,
    });
    if (!text.ok) throw new Error(text.error.message);
    const hash = `sha256:${createHash('sha256').update(text.value).digest('hex')}`;
    expect(hash).toBe(fixture.bundleHash);
    const core = computeBundleHashes(fixture.withMembers);
    expect(core.ok && core.value.bundleHash).toBe(hash);
  });

  it('keeps no inherited or prototype member', () => {
    const bundle = JSON.parse('{"manifest":{},"__proto__":{"x":1},"constructor":1}') as Record<
      string,
      unknown
    >;
    const kept = covered.coveredBundleV2(bundle);
    expect(Object.keys(kept)).toEqual(['manifest']);
    expect(Object.getPrototypeOf(kept)).toBe(Object.prototype);
  });
});
