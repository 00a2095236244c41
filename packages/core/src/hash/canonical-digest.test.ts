// The incremental canonical hash (the V2 bundle hash, issue 14) must give exactly the digest of the
// whole canonical text, and refuse exactly what canonicalizeV2 refuses, with the same error.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readCorpus } from '../bundle/build/corpus/generate.ts';
import { computeBundleHash } from '../bundle/v2/pipeline.ts';
import { canonicalBytesV2, canonicalizeV2, canonicalMemoV2 } from '../canonical/index.ts';
import { hexDigest, hexDigestCanonicalV2 } from './index.ts';

const RUNS = Number(process.env['FUZZ_RUNS'] ?? 300);

/** The reference: hash of the complete text, as the bundle hash was computed before. */
function wholeTextDigest(alg: 'sha256' | 'sha3-256', value: unknown) {
  const text = canonicalizeV2(value);
  return text.ok ? { ok: true as const, value: hexDigest(alg, text.value) } : text;
}

/** Every container inside `value` (itself included), outermost first. */
function containers(value: unknown, into: object[] = []): object[] {
  if (value !== null && typeof value === 'object') {
    into.push(value);
    for (const item of Object.values(value)) containers(item, into);
  }
  return into;
}

const jsonValues = fc.oneof(
  fc.jsonValue(),
  fc.jsonValue({ stringUnit: 'binary' }),
  fc.jsonValue({ maxDepth: 3, stringUnit: 'binary-ascii' }),
);

/** Values whose text runs past the sink's 32 K gathering limit, with long verbatim strings. */
const largeValues = fc.array(
  fc.record({
    sig: fc.nat(255).map((seed) => Buffer.alloc(3000 + 10 * seed, seed).toString('base64')),
    note: fc.string({ unit: 'binary', maxLength: 40 }),
    n: fc.integer(),
  }),
  { minLength: 1, maxLength: 12 },
);

describe('hexDigestCanonicalV2', () => {
  it('equals the digest of the whole canonical text, or fails with the same error', () => {
    fc.assert(
      fc.property(fc.oneof(jsonValues, largeValues), fc.constantFrom('sha256', 'sha3-256'), (value, alg) => {
        expect(hexDigestCanonicalV2(alg, value)).toEqual(wholeTextDigest(alg, value));
      }),
      { numRuns: RUNS },
    );
  });

  it('with parts already written through a memo (as text or as bytes) the digest is unchanged', () => {
    fc.assert(
      fc.property(
        fc.oneof(jsonValues, largeValues),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.boolean(),
        (value, picks, asBytes) => {
          const inner = containers(value);
          const memo = canonicalMemoV2();
          for (const pick of picks) {
            const part = inner[pick % Math.max(1, inner.length)];
            if (part === undefined) continue;
            if (asBytes) canonicalBytesV2(part, memo);
            else canonicalizeV2(part, memo);
          }
          expect(hexDigestCanonicalV2('sha256', value, memo)).toEqual(wholeTextDigest('sha256', value));
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('refuses deep nesting, cycles, lone surrogates and non-plain objects as canonicalizeV2 does', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 70; i++) deep = [deep];
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = cyclic;
    for (const bad of [
      deep,
      cyclic,
      { k: 'x\ud800' },
      { ['\udc00']: 1 },
      { d: new Date(0) },
      undefined,
      1.5,
    ]) {
      const streamed = hexDigestCanonicalV2('sha256', bad);
      expect(streamed.ok).toBe(false);
      expect(streamed).toEqual(canonicalizeV2(bad));
    }
  });

  it('writes every single UTF-16 code unit as JSON.stringify does, lone surrogates refused', () => {
    const wrong: number[] = [];
    for (let unit = 0; unit < 0x10000; unit++) {
      const text = `a${String.fromCharCode(unit)}b`;
      const lone = unit >= 0xd800 && unit <= 0xdfff;
      const canonical = canonicalizeV2({ [text]: text });
      const expected = `{${JSON.stringify(text)}:${JSON.stringify(text)}}`;
      if (canonical.ok === lone || (canonical.ok && canonical.value !== expected)) wrong.push(unit);
    }
    expect(wrong).toEqual([]);
    expect(canonicalizeV2('\ud83d\ude00"')).toEqual({ ok: true, value: JSON.stringify('\ud83d\ude00"') });
  });
});

describe('the V2 bundle hash on the committed corpus', () => {
  it('computeBundleHash (streamed, memo or not) equals SHA-256 of the whole canonical text', () => {
    const { cases } = readCorpus();
    let compared = 0;
    for (const { request } of cases) {
      const signed = request.signed_bundle as Record<string, unknown> | undefined;
      if (signed === null || typeof signed !== 'object' || !('bundle' in signed)) continue;
      const whole = wholeTextDigest('sha256', { bundle: signed['bundle'], signature: signed['signature'] });
      const streamed = computeBundleHash(signed);
      if (!whole.ok) {
        expect(streamed.ok).toBe(false);
        continue;
      }
      expect(streamed).toEqual({ ok: true, value: `sha256:${whole.value}` });
      compared++;
    }
    expect(compared).toBeGreaterThan(20);
  });
});
