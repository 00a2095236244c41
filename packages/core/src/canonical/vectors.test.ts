// Our own canonical JSON vectors (packages/core/test-vectors/canonical-vectors.json): checked on every run,
// rewritten from our code with UPDATE_VECTORS=1. PROTOCOL §1.1 and §1.2; DECISIONS D2.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import stableStringify from 'json-stable-stringify';
import { describe, expect, it } from 'vitest';
import type { Result } from '../result.ts';
import { CANONICALIZATION_PROFILE, canonicalizeV1, canonicalizeV2, MAX_CANONICAL_DEPTH } from './index.ts';

// `canonicalize` is CommonJS whose typings claim an ES default export; require gives the function itself.
const canonicalize = createRequire(import.meta.url)('canonicalize') as (value: unknown) => string | undefined;

const REPO_ROOT = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../..');
const FILE = path.join(REPO_ROOT, 'packages/core/test-vectors/canonical-vectors.json');
const UPDATE = process.env['UPDATE_VECTORS'] === '1';

/** Inputs are JSON text, so literals such as `1.0`, `-0` and `"\ud800"` survive until parsing. */
interface CanonicalVector {
  readonly name: string;
  readonly input_json: string;
  readonly canonical?: string;
  readonly error?: string;
}

interface CanonicalVectorFile {
  readonly description: string;
  readonly profile: string;
  readonly max_depth: number;
  readonly v2: CanonicalVector[];
  readonly v1: CanonicalVector[];
}

const nested = (depth: number): string => `${'['.repeat(depth)}0${']'.repeat(depth)}`;

/** `{bundle: {audit_entries: [entry]}, signature: {}}` with an entry `depth` deep (its evidence holds the rest). */
const signedWithEntry = (depth: number): string =>
  `{"bundle":{"audit_entries":[{"evidence":{"extra":${nested(depth - 2)}}}]},"signature":{}}`;

const V2_INPUTS: Array<[string, string]> = [
  ['null', 'null'],
  ['true', 'true'],
  ['false', 'false'],
  ['zero', '0'],
  ['negative_zero', '-0'],
  ['one', '1'],
  ['integer_exact_float', '1.0'],
  ['trailing_zeros', '1.00'],
  ['scientific_integer', '1e2'],
  ['negative_scientific_integer', '-2.50e1'],
  ['negative_integer', '-42'],
  ['max_safe_integer', '9007199254740991'],
  ['min_safe_integer', '-9007199254740991'],
  ['unsafe_integer_rejected', '9007199254740992'],
  ['huge_integer_rejected', '1e21'],
  ['non_integer_rejected', '0.1'],
  ['fractional_rejected', '1.5'],
  ['scientific_fractional_rejected', '1.0e-1'],
  ['nested_float_path', '{"payload":{"metrics":{"error_rate":0.5,"uptime":999}}}'],
  ['float_in_array_path', '{"items":[1,2,{"odd key":[0,0.25]}]}'],
  ['empty_object', '{}'],
  ['empty_array', '[]'],
  ['null_preservation', '{"x": null, "y": 1}'],
  ['array_with_null', '[1, null, 3]'],
  ['key_sort_unicode', '{"é": 1, "e": 2, "z": 3}'],
  ['key_sort_utf16_not_code_point', '{"\\uffff": 1, "\\ud83d\\ude00": 2}'],
  ['key_sort_integer_like_keys', '{"10": "a", "2": "b", "1": "c"}'],
  ['key_sort_prefixes_and_case', '{"b": 1, "aa": 2, "a": 3, "B": 4, "": 5}'],
  ['proto_key_is_data', '{"__proto__": {"x": 1}, "a": 2}'],
  ['deeply_nested', '{"a": {"b": {"c": {"d": 42}}}}'],
  ['string_escapes', '"\\"\\\\/\\b\\f\\n\\r\\t\\u0000\\u0001\\u001f\\u007f"'],
  ['string_raw_non_ascii', '"<>&\\u2028\\u2029é\\ud83c\\udf0d"'],
  ['string_nfc', '"caf\\u00e9"'],
  ['string_nfd', '"cafe\\u0301"'],
  ['lone_high_surrogate_rejected', '{"s": "a\\ud800"}'],
  ['lone_low_surrogate_rejected', '{"s": "\\udfffa"}'],
  ['lone_surrogate_key_rejected', '{"k\\udc00": 1}'],
  ['depth_64_accepted', nested(MAX_CANONICAL_DEPTH)],
  ['depth_65_rejected', nested(MAX_CANONICAL_DEPTH + 1)],
  // P219: what a V2 bundle hash covers, jcs({bundle, signature}), puts an audit entry 4 deep: an entry 61 deep fits,
  // one 62 deep hashes alone but leaves the bundle with no hash (core's verifier then fails `schema`).
  ['signed_bundle_entry_61_deep', signedWithEntry(MAX_CANONICAL_DEPTH - 3)],
  ['signed_bundle_entry_62_deep_rejected', signedWithEntry(MAX_CANONICAL_DEPTH - 2)],
  ['mixed_document', '{"z":[true,false,null,{"b":-1,"a":[]}],"a":"text","m":{"":0}}'],
];

const V1_INPUTS: Array<[string, string]> = [
  ['float_risk_score', '{"risk_score": 0.21, "decision": "approve"}'],
  ['small_exponent', '1e-7'],
  ['large_exponent', '1e21'],
  ['shortest_round_trip', '0.30000000000000004'],
  ['min_subnormal', '5e-324'],
  ['max_double', '1.7976931348623157e308'],
  ['negative_fraction', '-1.5e-10'],
  ['decimal_fraction', '123456789.123'],
  ['negative_zero', '-0'],
  ['integer_exact_float', '1.0'],
  ['beyond_safe_integer_allowed', '9007199254740994'],
  ['key_sort_utf16_not_code_point', '{"\\uffff": 1, "\\ud83d\\ude00": 2}'],
  ['string_escapes', '"\\"\\\\\\n\\u0000<>&é"'],
  ['nested_floats', '{"b":[0.5,{"y":2.25,"x":-0.125}],"a":1e-9}'],
  ['lone_surrogate_rejected', '{"s": "\\ud800"}'],
  ['depth_64_accepted', nested(MAX_CANONICAL_DEPTH)],
  ['depth_65_rejected', nested(MAX_CANONICAL_DEPTH + 1)],
];

function toVector(name: string, inputJson: string, result: Result<string>): CanonicalVector {
  return result.ok
    ? { name, input_json: inputJson, canonical: result.value }
    : { name, input_json: inputJson, error: result.error.message };
}

function generate(): CanonicalVectorFile {
  return {
    description:
      'Canonical JSON vectors of this project. v2: dcp-jcs-v1 (integers only, keys by UTF-16 code units, JSON.stringify string escaping); v1: json-stable-stringify rules (ECMAScript number text). `input_json` is parsed with JSON.parse first. A vector has either `canonical` or `error` (the message our implementation gives; other implementations need only fail).',
    profile: CANONICALIZATION_PROFILE,
    max_depth: MAX_CANONICAL_DEPTH,
    v2: V2_INPUTS.map(([name, input]) => toVector(name, input, canonicalizeV2(JSON.parse(input)))),
    v1: V1_INPUTS.map(([name, input]) => toVector(name, input, canonicalizeV1(JSON.parse(input)))),
  };
}

function writeVectors(): void {
  describe('canonical vectors (UPDATE_VECTORS=1)', () => {
    it('writes packages/core/test-vectors/canonical-vectors.json', () => {
      writeFileSync(FILE, `${JSON.stringify(generate(), null, 2)}\n`);
      expect(existsSync(FILE)).toBe(true);
    });
  });
}

function checkVectors(): void {
  describe('canonical vectors (packages/core/test-vectors/canonical-vectors.json)', () => {
    // A missing file fails the first test below rather than the whole collection.
    const stored: CanonicalVectorFile = existsSync(FILE)
      ? (JSON.parse(readFileSync(FILE, 'utf8')) as CanonicalVectorFile)
      : { description: '', profile: '', max_depth: 0, v2: [], v1: [] };

    it('holds the cases the generator defines, with the current profile and depth', () => {
      expect(existsSync(FILE), `${FILE} is missing: run with UPDATE_VECTORS=1`).toBe(true);
      const fresh = generate();
      expect(stored.profile).toBe(CANONICALIZATION_PROFILE);
      expect(stored.max_depth).toBe(MAX_CANONICAL_DEPTH);
      expect(stored.v2.map((v) => v.name)).toEqual(fresh.v2.map((v) => v.name));
      expect(stored.v1.map((v) => v.name)).toEqual(fresh.v1.map((v) => v.name));
    });

    const check = (vector: CanonicalVector, result: Result<string>): void => {
      if (vector.error !== undefined) {
        expect(result.ok).toBe(false);
        if (!result.ok) expect(result.error.message).toBe(vector.error);
      } else {
        expect(result.ok && result.value).toBe(vector.canonical);
      }
    };

    // Accepted outputs are also checked against the reference packages (RFC 8785 / json-stable-stringify).
    it.each(stored.v2.map((v) => [v.name, v] as const))('v2 %s', (_name, vector) => {
      const input: unknown = JSON.parse(vector.input_json);
      check(vector, canonicalizeV2(input));
      if (vector.canonical !== undefined) expect(canonicalize(input)).toBe(vector.canonical);
    });

    it.each(stored.v1.map((v) => [v.name, v] as const))('v1 %s', (_name, vector) => {
      const input: unknown = JSON.parse(vector.input_json);
      check(vector, canonicalizeV1(input));
      if (vector.canonical !== undefined) expect(stableStringify(input)).toBe(vector.canonical);
    });
  });
}

if (UPDATE) writeVectors();
else checkVectors();
