// Upstream examples and generated V2 bundles judged by our schemas, as PROTOCOL §11 describes them.
// PROTOCOL §10–11; DECISIONS D7 (GENESIS in prev_hash_secondary) and D15 (floats in /v2 records rejected).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type SchemaIssue, type SchemaVersion, validateSchema } from './index.ts';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const VECTORS = path.resolve(ROOT, '../shared/vectors');
const EXAMPLES = path.join(VECTORS, 'tests/conformance/examples');
const GENERATED = path.join(VECTORS, 'generated/v2_signed_bundles.generated.json');

const readJson = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));

const PASS = 'pass' as const;
const mustBeInteger = (...paths: string[]): SchemaIssue[] =>
  paths.map((p) => ({ path: p, message: 'must be integer' }));

/**
 * Every upstream example file, the schema that judges it and the verdict we expect (PROTOCOL §11).
 * A list of issues means: rejected with exactly these issues.
 */
const EXPECTATIONS: readonly (readonly [
  file: string,
  version: SchemaVersion,
  schema: string,
  expected: typeof PASS | readonly SchemaIssue[],
])[] = [
  // V1 artifacts of the example bundle, the bundle and the signed bundle.
  ['responsible_principal_record.json', 'v1', 'responsible_principal_record', PASS],
  ['agent_passport.json', 'v1', 'agent_passport', PASS],
  ['intent.json', 'v1', 'intent', PASS],
  ['policy_decision.json', 'v1', 'policy_decision', PASS], // float risk_score 0.21 is fine in V1
  ['audit_entry.json', 'v1', 'audit_entry', PASS],
  ['citizenship_bundle.json', 'v1', 'citizenship_bundle', PASS],
  ['citizenship_bundle.signed.json', 'v1', 'signed_bundle', PASS],
  // Upstream's own V1 example fails its schema: confirmation_method is not a member (PROTOCOL §5.3).
  [
    'human_confirmation.json',
    'v1',
    'human_confirmation',
    [{ path: '', message: "must NOT have additional property 'confirmation_method'" }],
  ],
  // V2 artifact payloads.
  ['rpr_v2.json', 'v2', 'responsible_principal_record', PASS],
  ['passport_v2.json', 'v2', 'agent_passport', PASS],
  ['intent_v2.json', 'v2', 'intent', PASS],
  ['policy_decision_v2.json', 'v2', 'policy_decision', PASS],
  // /v2 records.
  ['commissioning_certificate_v2.json', 'v2', 'commissioning_certificate', PASS],
  [
    'vitality_report_v2.json',
    'v2',
    'vitality_report',
    // D15: the four metrics are floats 0–1 upstream; ours are integers 0–1000.
    mustBeInteger(
      '/metrics/task_completion_rate',
      '/metrics/error_rate',
      '/metrics/human_satisfaction',
      '/metrics/policy_alignment',
    ),
  ],
  ['decommissioning_record_v2.json', 'v2', 'decommissioning_record', PASS],
  ['digital_testament_v2.json', 'v2', 'digital_testament', PASS],
  ['succession_record_v2.json', 'v2', 'succession_record', PASS],
  ['memory_transfer_manifest_v2.json', 'v2', 'memory_transfer_manifest', PASS],
  ['dispute_record_v2.json', 'v2', 'dispute_record', PASS],
  ['arbitration_resolution_v2.json', 'v2', 'arbitration_resolution', PASS],
  ['jurisprudence_bundle_v2.json', 'v2', 'jurisprudence_bundle', PASS],
  ['objection_record_v2.json', 'v2', 'objection_record', PASS],
  ['rights_declaration_v2.json', 'v2', 'rights_declaration', PASS],
  ['obligation_record_v2.json', 'v2', 'obligation_record', PASS],
  ['rights_violation_report_v2.json', 'v2', 'rights_violation_report', PASS],
  ['delegation_mandate_v2.json', 'v2', 'delegation_mandate', PASS],
  ['advisory_declaration_v2.json', 'v2', 'advisory_declaration', PASS],
  ['principal_mirror_v2.json', 'v2', 'principal_mirror', PASS],
  ['interaction_record_v2.json', 'v2', 'interaction_record', PASS],
  // D15: rule 1 (error_rate_hourly >= 0.15) is a float; the other three values are integers.
  ['awareness_threshold_v2.json', 'v2', 'awareness_threshold', mustBeInteger('/threshold_rules/1/value')],
];

describe.skipIf(!existsSync(EXAMPLES))('upstream conformance examples (../shared/vectors)', () => {
  it('the table covers every example file', () => {
    expect(EXPECTATIONS.map(([file]) => file).sort()).toEqual(
      readdirSync(EXAMPLES)
        .filter((f) => f.endsWith('.json'))
        .sort(),
    );
  });

  it.each(EXPECTATIONS)('%s against %s/%s', (file, version, schema, expected) => {
    const verdict = validateSchema(version, schema, readJson(path.join(EXAMPLES, file)));
    if (expected === PASS) expect(verdict).toEqual({ valid: true });
    else expect(verdict).toEqual({ valid: false, issues: expected });
  });

  it('the V1 signed example validates its inner bundle and every audit entry on their own', () => {
    const signed = readJson(path.join(EXAMPLES, 'citizenship_bundle.signed.json')) as {
      bundle: { audit_entries: unknown[] };
    };
    expect(validateSchema('v1', 'citizenship_bundle', signed.bundle)).toEqual({ valid: true });
    for (const entry of signed.bundle.audit_entries)
      expect(validateSchema('v1', 'audit_entry', entry).valid).toBe(true);
  });
});

interface SignedPayload {
  payload: Record<string, unknown>;
}
interface GeneratedBundle {
  bundle: {
    manifest: Record<string, unknown>;
    responsible_principal_record: SignedPayload;
    agent_passport: SignedPayload;
    intent: SignedPayload;
    policy_decision: SignedPayload;
    audit_entries: Record<string, unknown>[];
    pq_checkpoints?: unknown[];
  };
  signature: Record<string, unknown>;
}

const BUNDLE_CASES = [
  'basic_signed_by_rpr_keys',
  'dual_hash_checkpoints_signed_by_agent_keys',
  'classical_only_bundle',
];

describe.skipIf(!existsSync(GENERATED))('generated V2 signed bundles (../shared/vectors/generated)', () => {
  const generated = existsSync(GENERATED)
    ? (readJson(GENERATED) as Record<string, { signed_bundle: GeneratedBundle }>)
    : {};
  const bundleOf = (name: string): GeneratedBundle => generated[name]!.signed_bundle;

  it.each(BUNDLE_CASES)('%s validates against v2/signed_bundle', (name) => {
    expect(validateSchema('v2', 'signed_bundle', bundleOf(name))).toEqual({ valid: true });
  });

  it.each(BUNDLE_CASES)('%s: each artifact payload validates against its artifact schema', (name) => {
    const { bundle } = bundleOf(name);
    const rpr = bundle.responsible_principal_record.payload;
    expect(
      validateSchema('v2', rpr['blinded'] === true ? 'blinded_rpr' : 'responsible_principal_record', rpr),
    ).toEqual({
      valid: true,
    });
    expect(validateSchema('v2', 'agent_passport', bundle.agent_passport.payload)).toEqual({ valid: true });
    expect(validateSchema('v2', 'intent', bundle.intent.payload)).toEqual({ valid: true });
    expect(validateSchema('v2', 'policy_decision', bundle.policy_decision.payload)).toEqual({ valid: true });
    expect(validateSchema('v2', 'bundle_manifest', bundle.manifest)).toEqual({ valid: true });
    for (const checkpoint of bundle.pq_checkpoints ?? []) {
      expect(validateSchema('v2', 'pq_checkpoint', checkpoint)).toEqual({ valid: true });
    }
  });

  it("accepts entry 0's prev_hash_secondary GENESIS (D7; upstream's own schema rejects it)", () => {
    const entries = bundleOf('dual_hash_checkpoints_signed_by_agent_keys').bundle.audit_entries;
    expect(entries[0]?.['prev_hash_secondary']).toBe('GENESIS');
    expect(entries[1]?.['prev_hash_secondary']).toMatch(/^sha3-256:/);
    for (const entry of entries) expect(validateSchema('v2', 'audit_entry', entry)).toEqual({ valid: true });
  });

  it('rejects the real bundle once an audit entry stores its own primary_hash (D7)', () => {
    const bundle = structuredClone(bundleOf('basic_signed_by_rpr_keys'));
    bundle.bundle.audit_entries[2]!['primary_hash'] = `sha256:${'a'.repeat(64)}`;
    expect(validateSchema('v2', 'signed_bundle', bundle)).toEqual({
      valid: false,
      issues: [
        { path: '/bundle/audit_entries/2', message: "must NOT have additional property 'primary_hash'" },
      ],
    });
  });
});
