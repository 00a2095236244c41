// Behaviour of the schema registry: verdicts, readable issues, the DECISIONS amendments and our own examples.
// PROTOCOL §4.1, §6.1–6.6, §9.5–9.6, §10; DECISIONS D5, D6, D7, D11, D14, D15, D20, D21.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatSchemaIssues, getSchema, SCHEMA_NAMES, type SchemaVerdict, validateSchema } from './index.ts';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const OWN_EXAMPLES = path.join(ROOT, 'packages/core/test-vectors/schema-examples');

type Json = Record<string, unknown>;
const NONCE = 'ab'.repeat(32);
const sha256 = (c: string) => `sha256:${c.repeat(64)}`;
const sha3 = (c: string) => `sha3-256:${c.repeat(64)}`;
const KID_C = '0123456789abcdef0123456789abcdef';
const KID_PQ = 'fedcba9876543210fedcba9876543210';
const compositeSig = (): Json => ({
  classical: { alg: 'ed25519', kid: KID_C, sig_b64: 'Y2xhc3NpY2FsLXNpZw==' },
  pq: { alg: 'ml-dsa-65', kid: KID_PQ, sig_b64: 'cHEtc2lnbmF0dXJl' },
  binding: 'pq_over_classical',
});
const signedPayload = (payload: Json): Json => ({
  payload,
  payload_hash: sha256('1'),
  composite_sig: compositeSig(),
});
const auditEntry = (i: number): Json => ({
  dcp_version: '2.0',
  audit_id: `audit-${i}-xyz`,
  session_nonce: NONCE,
  prev_hash: i === 0 ? 'GENESIS' : sha256('2'),
  prev_hash_secondary: i === 0 ? 'GENESIS' : sha3('3'),
  hash_alg: 'sha256+sha3-256',
  timestamp: '2026-05-01T12:01:00Z',
  agent_id: 'agent-0001',
  human_id: 'human-0001',
  intent_id: 'intent-0001',
  intent_hash: sha256('4'),
  intent_hash_secondary: sha3('5'),
  policy_decision: 'approved',
  outcome: 'done',
  evidence: { tool: 'smtp', result_ref: null, evidence_hash: null, extra: 'allowed' },
  pq_checkpoint_ref: null,
});
const sdkCheckpoint = (): Json => ({
  checkpoint_id: 'ckpt-0001',
  session_nonce: NONCE,
  event_range: { from_audit_id: 'audit-0-xyz', to_audit_id: 'audit-1-xyz', count: 2 },
  merkle_root: sha256('6'),
  composite_sig: compositeSig(),
});
const specCheckpoint = (): Json => ({
  type: 'pq_checkpoint',
  checkpoint_index: 0,
  session_nonce: NONCE,
  audit_state: {
    entry_count: 2,
    primary_merkle_root: sha256('6'),
    secondary_merkle_root: sha3('7'),
    last_primary_hash: sha256('8'),
    last_secondary_hash: sha3('9'),
  },
  composite_sig: compositeSig(),
  timestamp: '2026-05-01T12:05:00Z',
});
const sdkManifest = (): Json => ({
  session_nonce: NONCE,
  rpr_hash: sha256('a'),
  passport_hash: sha256('b'),
  intent_hash: sha256('c'),
  policy_hash: sha256('d'),
  audit_merkle_root: sha256('e'),
  audit_count: 2,
  canonicalization_profile: 'dcp-jcs-v1',
  audit_merkle_root_secondary: sha3('f'),
  pq_checkpoints: ['ckpt-0001'],
  session_expires_at: '2099-01-01T00:00:00.000Z',
  intended_verifier: 'verifier.example.org',
});
/** A schema-valid V2 signed bundle (hashes and signatures are placeholders: schema checks only). */
const v2Bundle = () => ({
  bundle: {
    dcp_bundle_version: '2.0',
    manifest: sdkManifest(),
    responsible_principal_record: signedPayload({ human_id: 'human-0001' }),
    agent_passport: signedPayload({ agent_id: 'agent-0001' }),
    intent: signedPayload({ intent_id: 'intent-0001' }),
    policy_decision: signedPayload({ intent_id: 'intent-0001' }),
    audit_entries: [auditEntry(0), auditEntry(1)],
    pq_checkpoints: [sdkCheckpoint()] as Json[],
  },
  signature: {
    hash_alg: 'sha256+sha3-256',
    created_at: '2026-05-01T12:10:00Z',
    signer: { type: 'human', id: 'human-0001', kids: [KID_C, KID_PQ] },
    manifest_hash: sha256('0'),
    composite_sig: compositeSig(),
  } as Json,
});
const readOwn = (kind: string): Json =>
  JSON.parse(readFileSync(path.join(OWN_EXAMPLES, `${kind}.json`), 'utf8')) as Json;
const issuesOf = (verdict: SchemaVerdict) => (verdict.valid ? [] : verdict.issues);
const VALID = { valid: true };

describe('validateSchema: API contract', () => {
  it('passes a valid document with the shared { valid: true } verdict', () => {
    expect(validateSchema('v2', 'signed_bundle', v2Bundle())).toEqual(VALID);
    expect(validateSchema('v2', 'composite_signature', compositeSig())).toEqual(VALID);
  });

  it('reports an unknown schema name as an issue at the document root', () => {
    expect(validateSchema('v2', 'citizenship_bundle', {})).toEqual({
      valid: false,
      issues: [{ path: '', message: 'unknown schema v2/citizenship_bundle' }],
    });
    expect(validateSchema('v1', 'bundle_manifest', {})).toEqual({
      valid: false,
      issues: [{ path: '', message: 'unknown schema v1/bundle_manifest' }],
    });
    expect(validateSchema('v3' as 'v2', 'intent', {})).toEqual({
      valid: false,
      issues: [{ path: '', message: 'unknown schema v3/intent' }],
    });
  });

  it('never throws, whatever the arguments', () => {
    const circular: Json = { dcp_version: '2.0' };
    circular['self'] = circular;
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('boom');
        },
        has() {
          throw new Error('boom');
        },
      },
    );
    const calls: (() => SchemaVerdict)[] = [
      () => validateSchema('v2', '__proto__', {}),
      () => validateSchema('v2', 'constructor', {}),
      () => validateSchema('v2', undefined as unknown as string, {}),
      () => validateSchema('v2', { toString: () => 'intent' } as unknown as string, {}),
      () =>
        validateSchema(
          {
            toString: () => {
              throw new Error('boom');
            },
          } as unknown as 'v2',
          'intent',
          {},
        ),
      () => validateSchema(null as unknown as 'v2', 'intent', {}),
      () => validateSchema('v2', 'intent', undefined),
      () => validateSchema('v2', 'intent', circular),
      () => validateSchema('v2', 'intent', 10n),
      () => validateSchema('v2', 'intent', Symbol('x')),
      () => validateSchema('v2', 'intent', hostile),
    ];
    for (const call of calls) {
      const verdict = call();
      expect(verdict.valid).toBe(false);
      expect(issuesOf(verdict).length).toBeGreaterThan(0);
    }
  });

  it('gives the same answer on repeated calls (the cached validator keeps no state between values)', () => {
    const bad = { ...compositeSig(), binding: 'independent' };
    const first = validateSchema('v2', 'composite_signature', bad);
    expect(validateSchema('v2', 'composite_signature', compositeSig())).toEqual(VALID);
    expect(validateSchema('v2', 'composite_signature', bad)).toEqual(first);
  });

  it('addresses $defs members as <name>#<def> and rejects unknown members', () => {
    expect(getSchema('v2', 'revocation_record#revocation_list')).toMatchObject({
      title: 'Jurisdictional revocation list',
    });
    expect(validateSchema('v2', 'revocation_record#nope', {})).toEqual({
      valid: false,
      issues: [{ path: '', message: 'unknown schema v2/revocation_record#nope' }],
    });
    expect(getSchema('v2', 'revocation_record#nope')).toBeUndefined();
  });

  it('serves the raw schema documents frozen, for OpenAPI docs', () => {
    const manifest = getSchema('v2', 'bundle_manifest') as Json;
    expect(manifest['$id']).toBe('https://schemas.signed-bundles.org/v2/bundle_manifest.schema.json');
    expect(Object.isFrozen(manifest)).toBe(true);
    expect(Object.isFrozen(manifest['properties'])).toBe(true);
    expect(getSchema('v2', 'nope')).toBeUndefined();
    expect(Object.isFrozen(SCHEMA_NAMES.v2)).toBe(true);
  });
});

describe('formatSchemaIssues', () => {
  const issues = [
    { path: '', message: "must have required property 'bundle'" },
    { path: '/a/0', message: 'must be integer' },
    { path: '/b', message: 'must be string' },
  ];
  it('renders "<path> <message>" joined by "; ", the root as (root)', () => {
    expect(formatSchemaIssues(issues)).toBe(
      "(root) must have required property 'bundle'; /a/0 must be integer; /b must be string",
    );
    expect(formatSchemaIssues([])).toBe('');
  });
  it('stops at the limit and says how many were left out', () => {
    expect(formatSchemaIssues(issues, 2)).toBe(
      "(root) must have required property 'bundle'; /a/0 must be integer; … and 1 more",
    );
  });
});

describe('negative cases are rejected with readable issue paths', () => {
  it('a manifest with an unknown member', () => {
    const b = v2Bundle();
    b.bundle.manifest['bundle_hash'] = sha256('1');
    expect(validateSchema('v2', 'signed_bundle', b)).toEqual({
      valid: false,
      issues: [{ path: '/bundle/manifest', message: "must NOT have additional property 'bundle_hash'" }],
    });
  });

  it('a PQ checkpoint mixing the SDK and SPEC.md shapes (D6)', () => {
    const b = v2Bundle();
    b.bundle.pq_checkpoints = [{ ...sdkCheckpoint(), type: 'pq_checkpoint', checkpoint_index: 0 }];
    const issues = issuesOf(validateSchema('v2', 'signed_bundle', b));
    expect(issues.every((i) => i.path === '/bundle/pq_checkpoints/0')).toBe(true);
    expect(issues).toContainEqual({
      path: '/bundle/pq_checkpoints/0',
      message: "must NOT have additional property 'type'",
    });
    expect(issues).toContainEqual({
      path: '/bundle/pq_checkpoints/0',
      message: "must NOT have additional property 'checkpoint_id'",
    });
    expect(issues.at(-1)).toEqual({
      path: '/bundle/pq_checkpoints/0',
      message: 'must match exactly one of the allowed shapes',
    });
  });

  it('a composite signature with binding "independent" (PROTOCOL §4.2)', () => {
    const expected = 'must be one of: "pq_over_classical", "classical_only"';
    expect(
      validateSchema('v2', 'composite_signature', { ...compositeSig(), binding: 'independent' }),
    ).toEqual({
      valid: false,
      issues: [{ path: '/binding', message: expected }],
    });
    const b = v2Bundle();
    (b.signature['composite_sig'] as Json)['binding'] = 'independent';
    expect(validateSchema('v2', 'signed_bundle', b)).toEqual({
      valid: false,
      issues: [{ path: '/signature/composite_sig/binding', message: expected }],
    });
  });

  it('an audit entry storing primary_hash / secondary_hash (D7: computed, never stored)', () => {
    const b = v2Bundle();
    b.bundle.audit_entries[1]!['primary_hash'] = sha256('1');
    b.bundle.audit_entries[1]!['secondary_hash'] = sha3('1');
    expect(validateSchema('v2', 'signed_bundle', b)).toEqual({
      valid: false,
      issues: [
        { path: '/bundle/audit_entries/1', message: "must NOT have additional property 'primary_hash'" },
        { path: '/bundle/audit_entries/1', message: "must NOT have additional property 'secondary_hash'" },
      ],
    });
  });

  it('a float in a V2 vitality metric (D15)', () => {
    const report = readOwn('vitality_report');
    report['metrics'] = { ...(report['metrics'] as Json), error_rate: 0.012 };
    expect(validateSchema('v2', 'vitality_report', report)).toEqual({
      valid: false,
      issues: [{ path: '/metrics/error_rate', message: 'must be integer' }],
    });
    report['metrics'] = { ...(report['metrics'] as Json), error_rate: 1001 };
    expect(issuesOf(validateSchema('v2', 'vitality_report', report))).toEqual([
      { path: '/metrics/error_rate', message: 'must be <= 1000' },
    ]);
  });

  it('a nullable value of the wrong type names both accepted types', () => {
    expect(issuesOf(validateSchema('v2', 'composite_signature', { ...compositeSig(), pq: 5 }))).toEqual([
      { path: '/pq', message: 'must be object or null' },
    ]);
    const record = { ...readOwn('decommissioning_record'), successor_agent_id: 'bad id!' };
    expect(issuesOf(validateSchema('v2', 'decommissioning_record', record))).toEqual([
      { path: '/successor_agent_id', message: 'must match pattern "^[\\w:.\\-]{1,256}$"' },
    ]);
  });
});

describe('bundle manifest (D5)', () => {
  it("accepts SPEC.md's fields without the SDK's audit_count", () => {
    const { audit_count, canonicalization_profile, pq_checkpoints, ...rest } = sdkManifest();
    const spec = {
      ...rest,
      dcp_bundle_version: '2.0',
      checkpoint_count: 1,
      created_at: '2026-05-01T12:00:00Z',
    };
    expect(validateSchema('v2', 'bundle_manifest', spec)).toEqual(VALID);
    expect(validateSchema('v2', 'bundle_manifest', { ...sdkManifest(), ...spec })).toEqual(VALID);
  });
  it('leaves value checks (profile name, counts) to the verifier', () => {
    expect(
      validateSchema('v2', 'bundle_manifest', { ...sdkManifest(), canonicalization_profile: 'dcp-jcs-v2' }),
    ).toEqual(VALID);
    expect(validateSchema('v2', 'bundle_manifest', { ...sdkManifest(), audit_count: 7 })).toEqual(VALID);
  });
  it('rejects wrong types and formats', () => {
    const bad = {
      ...sdkManifest(),
      dcp_bundle_version: '1.0',
      checkpoint_count: -1,
      audit_count: 2.5,
      intended_verifier: 'v'.repeat(257),
      audit_merkle_root_secondary: sha256('f'),
      created_at: 'yesterday',
    };
    expect(issuesOf(validateSchema('v2', 'bundle_manifest', bad))).toEqual([
      { path: '/dcp_bundle_version', message: 'must be equal to "2.0"' },
      { path: '/audit_merkle_root_secondary', message: 'must match pattern "^sha3-256:[0-9a-f]{64}$"' },
      { path: '/audit_count', message: 'must be integer' },
      { path: '/checkpoint_count', message: 'must be >= 0' },
      { path: '/created_at', message: 'must match format "date-time"' },
      { path: '/intended_verifier', message: 'must NOT have more than 256 characters' },
    ]);
    const { session_nonce, ...noNonce } = sdkManifest();
    expect(issuesOf(validateSchema('v2', 'bundle_manifest', noNonce))).toEqual([
      { path: '', message: "must have required property 'session_nonce'" },
    ]);
  });
});

describe('PQ checkpoints (D6)', () => {
  it('accepts the SDK shape and the SPEC.md shape (session_nonce optional there)', () => {
    expect(validateSchema('v2', 'pq_checkpoint', sdkCheckpoint())).toEqual(VALID);
    expect(validateSchema('v2', 'pq_checkpoint', specCheckpoint())).toEqual(VALID);
    const { session_nonce, ...noNonce } = specCheckpoint();
    expect(validateSchema('v2', 'pq_checkpoint', noNonce)).toEqual(VALID);
    const b = v2Bundle();
    b.bundle.pq_checkpoints = [specCheckpoint(), sdkCheckpoint()];
    expect(validateSchema('v2', 'signed_bundle', b)).toEqual(VALID);
  });
  it('rejects an empty range and a SHA-256 root where SHA3 is required', () => {
    const sdk = sdkCheckpoint();
    sdk['event_range'] = { from_audit_id: 'audit-0-xyz', to_audit_id: 'audit-0-xyz', count: 0 };
    expect(issuesOf(validateSchema('v2', 'pq_checkpoint', sdk))).toContainEqual({
      path: '/event_range/count',
      message: 'must be >= 1',
    });
    const spec = specCheckpoint();
    (spec['audit_state'] as Json)['secondary_merkle_root'] = sha256('7');
    expect(issuesOf(validateSchema('v2', 'pq_checkpoint', spec))).toContainEqual({
      path: '/audit_state/secondary_merkle_root',
      message: 'must match pattern "^sha3-256:[0-9a-f]{64}$"',
    });
  });
});

describe('audit entries and bundle signature (D7, PROTOCOL §6.1, §6.5)', () => {
  it('accepts GENESIS or sha3-256 in prev_hash_secondary and an entry without the dual-hash fields', () => {
    const { prev_hash_secondary, intent_hash_secondary, ...single } = auditEntry(0);
    expect(validateSchema('v2', 'audit_entry', { ...single, hash_alg: 'sha256' })).toEqual(VALID);
    expect(validateSchema('v2', 'audit_entry', auditEntry(0))).toEqual(VALID);
    expect(validateSchema('v2', 'audit_entry', auditEntry(1))).toEqual(VALID);
  });
  it('rejects V1-style bare hex and a primary hash in the secondary chain', () => {
    const entry = { ...auditEntry(1), prev_hash: '2'.repeat(64), prev_hash_secondary: sha256('3') };
    expect(issuesOf(validateSchema('v2', 'audit_entry', entry))).toEqual([
      { path: '/prev_hash', message: 'must match pattern "^(?:GENESIS|sha256:[0-9a-f]{64})$"' },
      { path: '/prev_hash_secondary', message: 'must match pattern "^(?:GENESIS|sha3-256:[0-9a-f]{64})$"' },
    ]);
  });
  it('requires at least one audit entry', () => {
    const b = v2Bundle();
    b.bundle.audit_entries = [];
    expect(issuesOf(validateSchema('v2', 'signed_bundle', b))).toEqual([
      { path: '/bundle/audit_entries', message: 'must NOT have fewer than 1 items' },
    ]);
  });
  it("accepts SPEC.md's signature (composite_sig only) and rejects unknown signature members", () => {
    const b = v2Bundle();
    b.signature = { composite_sig: compositeSig() };
    expect(validateSchema('v2', 'signed_bundle', b)).toEqual(VALID);
    b.signature['domain_sep'] = 'DCP-BUNDLE-SIG-v2';
    expect(issuesOf(validateSchema('v2', 'signed_bundle', b))).toEqual([
      { path: '/signature', message: "must NOT have additional property 'domain_sep'" },
    ]);
  });
  it('accepts a classical-only composite signature with pq null (the binding rules are the verifier’s)', () => {
    const sig = { ...compositeSig(), pq: null, binding: 'classical_only' };
    expect(validateSchema('v2', 'composite_signature', sig)).toEqual(VALID);
    expect(
      issuesOf(
        validateSchema('v2', 'composite_signature', {
          ...sig,
          classical: { alg: 'ed25519', kid: 'ABC', sig_b64: 'x' },
        }),
      ),
    ).toEqual([
      { path: '/classical/kid', message: 'must match pattern "^[0-9a-f]{32}$"' },
      { path: '/classical/sig_b64', message: 'must NOT have fewer than 8 characters' },
    ]);
  });
});

describe('numbers: V1 floats, V2 integers (D15)', () => {
  const v1Policy = {
    dcp_version: '1.0',
    intent_id: 'intent001',
    decision: 'approve',
    risk_score: 0.21,
    reasons: ['low'],
  };
  it('keeps V1 risk_score a number 0–1', () => {
    expect(validateSchema('v1', 'policy_decision', v1Policy)).toEqual(VALID);
    expect(issuesOf(validateSchema('v1', 'policy_decision', { ...v1Policy, risk_score: 21 }))).toEqual([
      { path: '/risk_score', message: 'must be <= 1' },
    ]);
  });
  it('makes V2 risk_score and threshold values integers', () => {
    const v2Policy = {
      ...v1Policy,
      dcp_version: '2.0',
      session_nonce: NONCE,
      risk_score: 0.21,
      required_confirmation: null,
      applied_policy_hash: sha256('1'),
      timestamp: '2026-05-01T12:00:00Z',
    };
    expect(issuesOf(validateSchema('v2', 'policy_decision', v2Policy))).toEqual([
      { path: '/risk_score', message: 'must be integer' },
    ]);
    expect(validateSchema('v2', 'policy_decision', { ...v2Policy, risk_score: 210 })).toEqual(VALID);
    const threshold = readOwn('awareness_threshold');
    (threshold['threshold_rules'] as Json[])[0]!['value'] = 0.5;
    expect(issuesOf(validateSchema('v2', 'awareness_threshold', threshold))).toEqual([
      { path: '/threshold_rules/0/value', message: 'must be integer' },
    ]);
  });
});

describe('verifier policy', () => {
  it("accepts SPEC.md's shape, with only default_mode required", () => {
    expect(validateSchema('v2', 'verifier_policy', { default_mode: 'hybrid_required' })).toEqual(VALID);
    const spec = {
      default_mode: 'hybrid_preferred',
      risk_overrides: { low: 'classical_only', medium: 'hybrid_preferred', high: 'hybrid_required' },
      min_accepted_version: '1.0',
      accepted_algorithms: { signing: ['ed25519', 'ml-dsa-65', 'ml-dsa-87'], hash: ['sha256', 'sha3-256'] },
    };
    expect(validateSchema('v2', 'verifier_policy', spec)).toEqual(VALID);
  });
  it("accepts the upstream SDK's DEFAULT_VERIFIER_POLICY members (PROTOCOL §6.8)", () => {
    const upstream = {
      default_mode: 'hybrid_preferred',
      risk_overrides: { low: 'classical_only', medium: 'hybrid_preferred', high: 'hybrid_required' },
      min_classical: 1,
      min_pq: 1,
      accepted_classical_algs: ['ed25519'],
      accepted_pq_algs: ['ml-dsa-65', 'slh-dsa-192f'],
      accepted_hash_algs: ['sha256', 'sha384'],
      require_session_binding: true,
      require_composite_binding: true,
      max_key_age_days: 365,
      allow_v1_bundles: true,
      allow_classical_fallback_disable: false,
      warn_classical_only_deprecated: false,
      advisory_rejected_algs: [],
    };
    expect(validateSchema('v2', 'verifier_policy', upstream)).toEqual(VALID);
  });
  it('rejects a missing mode, unknown algorithms, a malformed version and unknown members', () => {
    expect(
      issuesOf(
        validateSchema('v2', 'verifier_policy', {
          min_accepted_version: '2',
          accepted_algorithms: { signing: ['ed448'] },
          max_key_age_days: 0,
          verifier_id: 'x',
        }),
      ),
    ).toEqual([
      { path: '', message: "must have required property 'default_mode'" },
      { path: '', message: "must NOT have additional property 'verifier_id'" },
      { path: '/min_accepted_version', message: 'must match pattern "^[0-9]+\\.[0-9]+$"' },
      {
        path: '/accepted_algorithms/signing/0',
        message: 'must be one of: "ed25519", "ml-dsa-65", "ml-dsa-87", "slh-dsa-192f"',
      },
      { path: '/max_key_age_days', message: 'must be >= 1' },
    ]);
  });
});

describe('/v2 record identifiers (D14)', () => {
  it('rejects ids outside ^[\\w:.\\-]{1,256}$ or shorter than 6 characters', () => {
    const dispute = readOwn('dispute_record');
    expect(
      issuesOf(validateSchema('v2', 'dispute_record', { ...dispute, dispute_id: 'dispute/../../etc' })),
    ).toEqual([{ path: '/dispute_id', message: 'must match pattern "^[\\w:.\\-]{1,256}$"' }]);
    expect(issuesOf(validateSchema('v2', 'dispute_record', { ...dispute, dispute_id: 'd:42' }))).toEqual([
      { path: '/dispute_id', message: 'must NOT have fewer than 6 characters' },
    ]);
    expect(
      issuesOf(validateSchema('v2', 'dispute_record', { ...dispute, dispute_id: 'd'.repeat(257) })).length,
    ).toBe(1);
    expect(validateSchema('v2', 'dispute_record', { ...dispute, dispute_id: 'd'.repeat(256) })).toEqual(
      VALID,
    );
  });
});

describe('revocation records, revocation list (D20) and attestations (D21)', () => {
  const edSig = {
    alg: 'ed25519',
    public_key_b64: 'PUH0iOaPKk4h/Ppzj0pbwOACQsysekB08aTEJc3+A5A=',
    sig_b64: 'c2lnbmF0dXJl',
  };
  const list = {
    issuer: 'registry.example.eu',
    jurisdiction: 'EU',
    updated_at: '2026-06-01T00:00:00Z',
    list_number: 12,
    next_update: '2026-06-02T00:00:00Z',
    entries: [{ agent_id: 'agent-0001', revoked_at: '2026-05-31T10:00:00Z', reason_hash: sha256('1') }],
    signature: edSig,
  };
  it('validates the V2 revocation record', () => {
    const record = {
      dcp_version: '2.0',
      agent_id: 'agent-0001',
      human_id: 'human-0001',
      revoked_kid: KID_C,
      timestamp: '2026-05-31T10:00:00Z',
      reason: 'key_rotation',
      composite_sig: compositeSig(),
    };
    expect(validateSchema('v2', 'revocation_record', record)).toEqual(VALID);
    expect(issuesOf(validateSchema('v2', 'revocation_record', { ...record, reason: 'bored' }))).toEqual([
      {
        path: '/reason',
        message:
          'must be one of: "key_compromise", "key_rotation", "administrative", "key_compromise_emergency"',
      },
    ]);
  });
  it('validates the signed revocation list with list_number and next_update', () => {
    expect(validateSchema('v2', 'revocation_record#revocation_list', list)).toEqual(VALID);
    const { next_update, ...stale } = list;
    expect(
      issuesOf(validateSchema('v2', 'revocation_record#revocation_list', { ...stale, list_number: -1 })),
    ).toEqual([
      { path: '', message: "must have required property 'next_update'" },
      { path: '/list_number', message: 'must be >= 0' },
    ]);
    expect(
      issuesOf(
        validateSchema('v2', 'revocation_record#revocation_list', {
          ...list,
          signature: { ...edSig, alg: 'ml-dsa-65' },
        }),
      ),
    ).toEqual([{ path: '/signature/alg', message: 'must be equal to "ed25519"' }]);
  });
  it('validates both attestation forms, each under its own name', () => {
    const issued = {
      issuer: 'registry.example.eu',
      jurisdiction: 'EU',
      rpr_hash: sha256('2'),
      agent_id: 'agent-0001',
      attested_at: '2026-06-01T00:00:00Z',
      expires_at: '2027-06-01T00:00:00Z',
      signature: edSig,
    };
    expect(validateSchema('v2', 'jurisdiction_attestation#issued_attestation', issued)).toEqual(VALID);
    const { signature, ...unsigned } = issued;
    const composite = {
      ...unsigned,
      type: 'jurisdiction_attestation',
      dcp_version: '2.0',
      composite_sig: compositeSig(),
    };
    expect(validateSchema('v2', 'jurisdiction_attestation', composite)).toEqual(VALID);
    expect(issuesOf(validateSchema('v2', 'jurisdiction_attestation', issued))).toContainEqual({
      path: '',
      message: "must have required property 'composite_sig'",
    });
  });
});

describe('V1 signed bundle signer key (D11)', () => {
  it('accepts a signer without public_key_b64 (the request key is used then)', () => {
    const signature = {
      alg: 'ed25519',
      created_at: '2026-03-10T07:50:05.377Z',
      signer: { type: 'human', id: 'did:human:alice123' },
      bundle_hash: sha256('1'),
      sig_b64: 'c2lnbmF0dXJl',
    };
    const verdict = validateSchema('v1', 'signed_bundle', { bundle: {}, signature });
    // Only the (empty) bundle is wrong, not the signer.
    expect(issuesOf(verdict).every((i) => i.path.startsWith('/bundle'))).toBe(true);
  });
});

/** The /v2 record kinds (PROTOCOL §9.2), one own example each. */
const RECORD_KINDS = [
  'commissioning_certificate',
  'vitality_report',
  'decommissioning_record',
  'digital_testament',
  'succession_record',
  'memory_transfer_manifest',
  'dispute_record',
  'arbitration_resolution',
  'jurisprudence_bundle',
  'objection_record',
  'rights_declaration',
  'obligation_record',
  'rights_violation_report',
  'delegation_mandate',
  'advisory_declaration',
  'principal_mirror',
  'interaction_record',
  'awareness_threshold',
];

describe('own /v2 record examples (packages/core/test-vectors/schema-examples)', () => {
  it('holds exactly one example per /v2 record kind', () => {
    expect(readdirSync(OWN_EXAMPLES).sort()).toEqual(RECORD_KINDS.map((k) => `${k}.json`).sort());
  });
  it.each(RECORD_KINDS)('%s.json validates against its v2 schema', (kind) => {
    expect(validateSchema('v2', kind, readOwn(kind))).toEqual(VALID);
  });
  it.each(RECORD_KINDS)('%s.json fails once an unknown member is added', (kind) => {
    expect(validateSchema('v2', kind, { ...readOwn(kind), note: 'x' })).toEqual({
      valid: false,
      issues: [{ path: '', message: "must NOT have additional property 'note'" }],
    });
  });
});
