// The shared upstream vectors for canonical JSON: interop canonical forms and edge cases, golden canonicalisation cases.
// PROTOCOL §1.1 (edge cases VERIFIED against interop_vectors.json), §1.2, §11; DECISIONS D2.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { canonicalizeV1, canonicalizeV2 } from './index.ts';

const REPO_ROOT = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../..');
const SHARED = path.resolve(REPO_ROOT, '../shared/vectors');
const INTEROP = path.join(SHARED, 'tests/interop/v2/interop_vectors.json');
const GOLDEN = path.join(SHARED, 'tests/conformance/v2/golden_vectors.json');
const V1_BUNDLE = path.join(SHARED, 'tests/conformance/examples/citizenship_bundle.json');

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8'));
}

interface CanonicalCase {
  readonly input: unknown;
  readonly expected_canonical: string;
}

interface EdgeCase {
  readonly name: string;
  readonly input?: unknown;
  readonly input_json?: string;
  readonly canonical?: string;
  readonly expects_error?: boolean;
}

describe.skipIf(!existsSync(INTEROP))('interop_vectors.json#canonicalization', () => {
  const interop = existsSync(INTEROP)
    ? (readJson(INTEROP) as {
        canonicalization: Record<string, CanonicalCase> & { edge_cases: { vectors: EdgeCase[] } };
      })
    : undefined;
  const section = interop?.canonicalization;

  it.each(['agent_passport', 'intent', 'audit_event'])('%s canonical form', (name) => {
    const vector = section?.[name] as CanonicalCase;
    expect(vector.expected_canonical.length).toBeGreaterThan(0);
    const v2 = canonicalizeV2(vector.input);
    expect(v2.ok && v2.value).toBe(vector.expected_canonical);
    // Integer-only data: the V1 canonicalizer gives the same bytes (PROTOCOL §1.2).
    const v1 = canonicalizeV1(vector.input);
    expect(v1.ok && v1.value).toBe(vector.expected_canonical);
  });

  it('has the 14 edge cases PROTOCOL §1.1 lists', () => {
    expect(section?.edge_cases.vectors).toHaveLength(14);
  });

  it.each(section?.edge_cases.vectors.map((v) => [v.name, v] as const) ?? [])(
    'edge case %s',
    (_name, vector) => {
      // input_json keeps literals such as 1.0 that a parsed `input` would have lost.
      const input = vector.input_json !== undefined ? JSON.parse(vector.input_json) : vector.input;
      const result = canonicalizeV2(input);
      if (vector.expects_error === true) {
        expect(result.ok).toBe(false);
        if (!result.ok) {
          expect(result.error.code).toBe('BUNDLE_SCHEMA_INVALID');
          expect(result.error.message).toMatch(/^\$\.n: non-integer number .* is not allowed by dcp-jcs-v1$/);
        }
      } else {
        expect(vector.canonical).toBeTypeOf('string');
        expect(result.ok && result.value).toBe(vector.canonical);
      }
    },
  );
});

describe.skipIf(!existsSync(GOLDEN))('golden_vectors.json canonicalisation', () => {
  const golden = existsSync(GOLDEN)
    ? (readJson(GOLDEN) as {
        canonicalization: Record<string, CanonicalCase>;
        v2_canonicalization: Record<string, CanonicalCase>;
        dual_hash_vectors: { intent_canonical: { canonical_json: string } };
      })
    : undefined;
  const cases = [
    ...Object.entries(golden?.canonicalization ?? {}).map(
      ([name, v]) => [`canonicalization.${name}`, v] as const,
    ),
    ...Object.entries(golden?.v2_canonicalization ?? {}).map(
      ([name, v]) => [`v2_canonicalization.${name}`, v] as const,
    ),
  ];

  it('has the golden cases', () => {
    expect(cases.length).toBe(8);
  });

  it.each(cases)('%s (V2 and V1 agree on integer data)', (_name, vector) => {
    const v2 = canonicalizeV2(vector.input);
    expect(v2.ok && v2.value).toBe(vector.expected_canonical);
    const v1 = canonicalizeV1(vector.input);
    expect(v1.ok && v1.value).toBe(vector.expected_canonical);
  });

  it.skipIf(!existsSync(V1_BUNDLE))(
    'V1 intent of the example bundle canonicalises to the golden canonical_json',
    () => {
      const bundle = readJson(V1_BUNDLE) as { intent: unknown };
      const v1 = canonicalizeV1(bundle.intent);
      expect(v1.ok && v1.value).toBe(golden?.dual_hash_vectors.intent_canonical.canonical_json);
    },
  );
});

describe.skipIf(!existsSync(V1_BUNDLE))('the V1 example bundle (PROTOCOL §1.2)', () => {
  it('is refused by dcp-jcs-v1 because of its float risk_score, and accepted by V1', () => {
    const bundle = readJson(V1_BUNDLE);
    const v2 = canonicalizeV2(bundle);
    expect(v2.ok).toBe(false);
    if (!v2.ok) {
      expect(v2.error.message).toBe(
        '$.policy_decision.risk_score: non-integer number 0.21 is not allowed by dcp-jcs-v1',
      );
    }
    const v1 = canonicalizeV1(bundle);
    expect(v1.ok && v1.value).toContain('"risk_score":0.21');
  });
});
