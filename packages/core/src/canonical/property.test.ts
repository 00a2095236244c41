// Property tests: V2 equals the RFC 8785 `canonicalize` package or errs for a stated reason; V1 equals json-stable-stringify.
// PROTOCOL §1.1 implementation note (canonicalize = TS SDK for integer data), §1.2; DECISIONS D2.
import { createRequire } from 'node:module';
import fc from 'fast-check';
import stableStringify from 'json-stable-stringify';
import { describe, expect, it } from 'vitest';
import { canonicalizeV1, canonicalizeV2, MAX_CANONICAL_DEPTH } from './index.ts';

// `canonicalize` is CommonJS whose typings claim an ES default export; require gives the function itself.
const canonicalize = createRequire(import.meta.url)('canonicalize') as (value: unknown) => string | undefined;

const RUNS = Number(process.env['FUZZ_RUNS'] ?? 400);

/** Why dcp-jcs-v1 must refuse a JSON value, computed independently of the implementation. */
function refusalReason(value: unknown, depth = 0): string | undefined {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return 'non-finite';
    if (!Number.isInteger(value)) return 'non-integer';
    if (!Number.isSafeInteger(value)) return 'unsafe';
    return undefined;
  }
  if (typeof value === 'string') return /\p{Cs}/u.test(value) ? 'surrogate' : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  if (depth + 1 > MAX_CANONICAL_DEPTH) return 'depth';
  if (Array.isArray(value)) {
    for (const item of value) {
      const reason = refusalReason(item, depth + 1);
      if (reason !== undefined) return reason;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    if (/\p{Cs}/u.test(key)) return 'surrogate';
    const reason = refusalReason(item, depth + 1);
    if (reason !== undefined) return reason;
  }
  return undefined;
}

/** JSON.parse turns -0 into 0 only through text; compare values with -0 folded into 0. */
function foldNegativeZero(value: unknown): unknown {
  if (typeof value === 'number') return value === 0 ? 0 : value;
  if (Array.isArray(value)) return value.map(foldNegativeZero);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, foldNegativeZero(v)]));
  }
  return value;
}

const jsonValues = fc.oneof(
  fc.jsonValue(),
  fc.jsonValue({ stringUnit: 'grapheme' }),
  fc.jsonValue({ stringUnit: 'binary' }),
  fc.jsonValue({ maxDepth: 3, stringUnit: 'binary-ascii' }),
);

/** Integer-heavy JSON, so that the success branch is exercised often. */
const integerJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.maxSafeInteger(),
    fc.integer(),
    fc.string({ unit: 'grapheme' }),
    fc.array(tie('value')),
    fc.dictionary(fc.string({ unit: 'grapheme' }), tie('value')),
  ),
})).value;

/**
 * Strings of the characters that need escaping or checking (quote, backslash, controls, both halves of
 * a surrogate pair, alone or paired) among plain ones, on both sides of the writer's short-string
 * scan (96 characters) and of its member-name cache (64); objects on both sides of its insertion sort.
 */
const careful = fc.string({
  unit: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('a', 'Z', '0', '+', '/', '=', ' ', '~', '\u007f') },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '"',
        '\\',
        '\u0000',
        '\n',
        '\u001f',
        '\ud83d',
        '\ude00',
        '\ud83d\ude00',
        'é',
        '\u2028',
      ),
    },
  ),
  maxLength: 200,
});
const carefulJson = fc.oneof(
  careful,
  fc.array(careful, { maxLength: 4 }),
  fc.dictionary(careful, careful, { maxKeys: 4 }),
  // Around the writer's insertion-sort limit (24 names): both sorts must give code-unit order.
  fc.dictionary(careful, fc.integer(), { minKeys: 20, maxKeys: 30 }),
  fc.dictionary(careful, fc.dictionary(careful, careful, { maxKeys: 3 }), { maxKeys: 3 }),
);

function checkV2AgainstCanonicalize(value: unknown): void {
  const ours = canonicalizeV2(value);
  const reason = refusalReason(value);
  if (reason !== undefined) {
    expect(ours.ok).toBe(false);
    return;
  }
  if (!ours.ok) throw new Error(`unexpected refusal: ${ours.error.message}`);
  expect(ours.value).toBe(canonicalize(value));
  expect(JSON.parse(ours.value)).toEqual(foldNegativeZero(value));
}

describe('canonicalizeV2 against the canonicalize package (RFC 8785)', () => {
  it('equals canonicalize on arbitrary JSON, or errs exactly when the value breaks dcp-jcs-v1', () => {
    fc.assert(fc.property(jsonValues, checkV2AgainstCanonicalize), { numRuns: RUNS });
  });

  it('equals canonicalize on integer-only JSON and re-parses to the same value', () => {
    fc.assert(fc.property(integerJson, checkV2AgainstCanonicalize), { numRuns: RUNS });
  });

  it('quotes strings and member names of every length and character class as canonicalize does', () => {
    fc.assert(fc.property(carefulJson, checkV2AgainstCanonicalize), { numRuns: RUNS });
  });

  it('refuses a member name with a lone surrogate every time it meets it', () => {
    for (let i = 0; i < 3; i++) {
      expect(canonicalizeV2({ a: 1, '\ud800': 2 }).ok).toBe(false);
      expect(canonicalizeV2({ [`${'k'.repeat(70)}\udc00`]: 2 }).ok).toBe(false);
    }
    expect(canonicalizeV2({ a: 1, '\ud83d\ude00': 2 })).toEqual({
      ok: true,
      value: '{"a":1,"\ud83d\ude00":2}',
    });
  });

  it('is idempotent: canonicalising the parsed output gives the output again', () => {
    fc.assert(
      fc.property(integerJson, (value) => {
        const once = canonicalizeV2(value);
        if (!once.ok) return;
        const twice = canonicalizeV2(JSON.parse(once.value));
        expect(twice.ok && twice.value).toBe(once.value);
      }),
      { numRuns: RUNS },
    );
  });

  it('never throws, whatever the input', () => {
    const anything = fc.oneof(
      fc.anything({ withBigInt: true, withMap: true, withSet: true, withDate: true }),
      jsonValues,
    );
    fc.assert(
      fc.property(anything, (value) => {
        const v2 = canonicalizeV2(value);
        const v1 = canonicalizeV1(value);
        expect(typeof v2.ok).toBe('boolean');
        expect(typeof v1.ok).toBe('boolean');
      }),
      { numRuns: RUNS },
    );
  });
});

describe('canonicalizeV1 against json-stable-stringify', () => {
  it('equals json-stable-stringify on JSON values (floats included)', () => {
    fc.assert(
      fc.property(jsonValues, (value) => {
        const ours = canonicalizeV1(value);
        const reason = refusalReason(value);
        if (reason === 'surrogate' || reason === 'depth') {
          expect(ours.ok).toBe(false);
          return;
        }
        if (!ours.ok) throw new Error(`unexpected refusal: ${ours.error.message}`);
        expect(ours.value).toBe(stableStringify(value));
      }),
      { numRuns: RUNS },
    );
  });

  it('equals json-stable-stringify on arbitrary doubles', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        const ours = canonicalizeV1({ n, list: [n] });
        expect(ours.ok && ours.value).toBe(stableStringify({ n, list: [n] }));
      }),
      { numRuns: RUNS },
    );
  });
});
