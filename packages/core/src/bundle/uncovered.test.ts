// Members no signature covers: named in a warning, never changing the verdict or the bundle hash (V2);
// V1's closed schema refuses them. Issue 12 item 2; canon decisions (V1 has no warnings, D12).
import { describe, expect, it } from 'vitest';
import { buildSignedBundle } from './build/index.ts';
import { computeBundleHashes } from './bundle-hashes.ts';
import { makeVerifier } from './test-support.ts';
import { splitUncoveredV2, uncoveredMemberWarnings, V2_BUNDLE_MEMBERS } from './uncovered.ts';

const now = () => new Date();

describe('V2 members no signature covers', () => {
  const built = buildSignedBundle({ tier: 'routine', entries: 2 });
  const verifier = makeVerifier({ clock: now });

  it('are named in warnings and change neither the verdict nor the analysis', () => {
    const plain = verifier.analyze({ signed_bundle: built.signed_bundle });
    const padded = structuredClone(built.signed_bundle) as Record<string, Record<string, unknown>>;
    padded['bundle']!['note'] = { verified: true };
    padded['bundle']!['odd key'] = 1;
    (padded as Record<string, unknown>)['comment'] = 'trust me';
    const response = verifier.verify({ signed_bundle: padded });
    expect(response.verified).toBe(true);
    expect(response.warnings).toEqual([
      ...(verifier.finalize(plain, now()).warnings ?? []),
      'signed_bundle.bundle.note is covered by no signature; it was ignored and does not affect the verdict',
      'signed_bundle.bundle["odd key"] is covered by no signature; it was ignored and does not affect the verdict',
      'signed_bundle.comment is covered by no signature; it was ignored and does not affect the verdict',
    ]);
    const analysis = verifier.analyze({ signed_bundle: padded });
    expect(analysis.bundleHash).toBe(plain.bundleHash);
    expect({ ...analysis, uncoveredMembers: undefined }).toEqual({ ...plain, uncoveredMembers: undefined });
  });

  it('P247: change no bundle hash, wherever it is computed (analysis, computeBundleHashes, the builder)', () => {
    const hooked = buildSignedBundle({
      entries: 2,
      hooks: {
        signedBundle: (signed) => {
          (signed['bundle'] as Record<string, unknown>)['note'] = 'added';
          signed['comment'] = 'added';
        },
      },
    });
    const asSigned = structuredClone(hooked.signed_bundle) as Record<string, Record<string, unknown>>;
    delete asSigned['bundle']!['note'];
    delete (asSigned as Record<string, unknown>)['comment'];
    const expected = computeBundleHashes(asSigned);
    expect(computeBundleHashes(hooked.signed_bundle)).toEqual(expected);
    expect(expected.ok && hooked.bundleHash).toBe(expected.ok && expected.value.bundleHash);
    expect(expected.ok && hooked.bundleHashSecondary).toBe(expected.ok && expected.value.bundleHashSecondary);
    const analysis = verifier.analyze({ signed_bundle: hooked.signed_bundle }, { bundleHashSecondary: true });
    expect(expected.ok && analysis.bundleHash).toBe(expected.ok && expected.value.bundleHash);
  });

  it('do not rescue a tampered bundle', () => {
    const tampered = structuredClone(built.signed_bundle) as {
      bundle: { audit_entries: Record<string, unknown>[] };
    };
    tampered.bundle.audit_entries[0]!['outcome'] = 'changed';
    (tampered.bundle as Record<string, unknown>)['extra'] = true;
    const response = verifier.verify({ signed_bundle: tampered });
    expect(response.verified).toBe(false);
    expect(response.warnings).toContain(
      'signed_bundle.bundle.extra is covered by no signature; it was ignored and does not affect the verdict',
    );
  });
});

describe('V1 members outside the schema', () => {
  it('stay a schema failure (the V1 schema is closed and V1 answers carry no warnings)', () => {
    const built = buildSignedBundle({ version: '1.0', entries: 2 });
    const verifier = makeVerifier({ clock: now });
    expect(verifier.verify({ signed_bundle: built.signed_bundle }).verified).toBe(true);
    const padded = { ...built.signed_bundle, comment: 'x' };
    const response = verifier.verify({ signed_bundle: padded });
    expect(response.verified).toBe(false);
    expect(response.checks['schema']).toBe('fail');
  });
});

describe('P269: an analysis of many members no signature covers', () => {
  it('carries the first few paths and a count, whatever their number, and answers the same warnings', () => {
    const verifier = makeVerifier({ clock: now });
    const built = buildSignedBundle({ tier: 'routine', entries: 2 });
    const plain = verifier.analyze({ signed_bundle: built.signed_bundle });
    const padded = structuredClone(built.signed_bundle) as Record<string, unknown>;
    for (let i = 0; i < 100_000; i++) padded[`m${i.toString(36)}`] = 10;
    const analysis = verifier.analyze({ signed_bundle: padded });
    // What a cache holds, a thread clones and retainedBytes walks: bounded by a constant over the plain analysis.
    expect(JSON.stringify(analysis).length - JSON.stringify(plain).length).toBeLessThan(1_000);
    const warnings = verifier.finalize(analysis, now()).warnings ?? [];
    const base = verifier.finalize(plain, now()).warnings ?? [];
    const sorted = Array.from({ length: 100_000 }, (_, i) => `signed_bundle.m${i.toString(36)}`).sort();
    expect(warnings).toEqual([
      ...base,
      ...sorted
        .slice(0, 10)
        .map((path) => `${path} is covered by no signature; it was ignored and does not affect the verdict`),
      '… and 99990 more members are covered by no signature; they were ignored and do not affect the verdict',
    ]);
  });
});

describe('P284: the first uncovered paths are selected, not sorted out of all of them', () => {
  // Today's answer, as P269 computed it: every path, sorted, the first ten named, all counted.
  const reference = (signed: Record<string, unknown>): { named: string[]; count: number } => {
    const path = (key: string) =>
      /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
    const outer = Object.keys(signed).filter((k) => k !== 'bundle' && k !== 'signature');
    const inner = Object.keys(signed['bundle'] as object).filter((k) => !V2_BUNDLE_MEMBERS.has(k));
    const all = [
      ...outer.map((k) => `signed_bundle${path(k)}`),
      ...inner.map((k) => `signed_bundle.bundle${path(k)}`),
    ].sort();
    return { named: all.slice(0, 10), count: all.length };
  };
  /** 100,000 members, inside and outside `bundle`: names that sort anywhere, quoted, integer-like, non-ASCII. */
  const padded = (seed: number): Record<string, unknown> => {
    const built = buildSignedBundle({ tier: 'routine', entries: 2 });
    const signed = structuredClone(built.signed_bundle) as Record<string, unknown>;
    const bundle = signed['bundle'] as Record<string, unknown>;
    let x = seed;
    const next = () => {
      x = (x * 1103515245 + 12345) % 2147483648;
      return x;
    };
    // Each name unique (its index), its form and its place drawn from the seed.
    const forms = [
      (i: string) => `m${i}`,
      (_i: string, index: number) => `${index}`,
      (i: string) => `odd key ${i}`,
      (i: string) => `é${i}`,
      (i: string) => `$${i}`,
      (i: string, _index: number, n: number) => `A${n % 97}.${i}`,
      (i: string) => `_${i}"q`,
    ];
    for (let index = 0; index < 100_000; index++) {
      const n = next();
      const name = forms[(n >>> 12) % forms.length]!(index.toString(36), index, n);
      ((n >>> 20) % 3 === 0 ? signed : bundle)[name] = index;
    }
    return signed;
  };

  it.each([1, 7, 424242])('names the same ten paths and the same count as a full sort (seed %i)', (seed) => {
    const verifier = makeVerifier({ clock: now });
    const signed = padded(seed);
    const expected = reference(signed);
    expect(expected.count).toBeGreaterThan(50_000);
    // The answer: byte-identical to the warnings of the fully sorted list (what finalize gave before P284).
    const warnings = verifier.verify({ signed_bundle: signed }).warnings ?? [];
    expect(JSON.stringify(warnings.slice(-11))).toBe(JSON.stringify(uncoveredMemberWarnings(expected)));
    expect(splitUncoveredV2(signed).members).toEqual(expected);
  });

  it('keeps at most ten paths whatever the number of members (no list of every path is built to be sorted)', () => {
    const view = splitUncoveredV2(padded(3));
    const kept = JSON.stringify(view, (key, value) => (key === 'covered' ? undefined : value));
    expect(kept.length).toBeLessThan(2_000);
  });
});
