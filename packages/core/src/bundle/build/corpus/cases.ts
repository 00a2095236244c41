// The bundle corpus cases: valid baselines, verdicts that differ by mode, and for every check a
// bundle that fails that check alone. SPEC.md "Verification modes", DECISIONS D5–D12.
import { hexDigest } from '../../../hash/index.ts';
import type { ProfileName } from '../../../profile.ts';
import { keyEntry } from '../keys.ts';
import type { BuildOptions, JsonObject } from '../types.ts';
import {
  type BaseName,
  baseProfile,
  CORPUS_NOW,
  flipSignature,
  KEYS,
  type TamperKit,
} from './fixture-context.ts';
import type { CorpusVerifierSettings, ExpectationSpec } from './model.ts';

export interface CaseSpec {
  readonly id: string;
  readonly description: string;
  readonly base: BaseName;
  /** Extra build options (hooks, checkpoint interval…): the case is rebuilt, then diffed against its base. */
  readonly build?: (kit: TamperKit) => Partial<BuildOptions>;
  /** A change after building, with no re-signing unless the case asks the kit for it. */
  readonly tamper?: (signed: JsonObject, kit: TamperKit) => void;
  readonly request?: Readonly<Record<string, unknown>>;
  readonly verifier?: Partial<Omit<CorpusVerifierSettings, 'now'>>;
  readonly expect: ExpectationSpec;
}

// Accessors into a signed bundle (fixtures know their own shape).
const o = (value: unknown): JsonObject => value as JsonObject;
const bundleOf = (s: JsonObject) => o(s['bundle']);
const manifestOf = (s: JsonObject) => o(bundleOf(s)['manifest']);
const signatureOf = (s: JsonObject) => o(s['signature']);
const compositeOf = (holder: JsonObject) => o(holder['composite_sig']);
const checkpointsOf = (s: JsonObject) => bundleOf(s)['pq_checkpoints'] as JsonObject[];
const artifactOf = (s: JsonObject, name: string) => o(bundleOf(s)[name]);
/** Assignment as a statement-valued helper (hooks are one-liners). */
function set(target: JsonObject, key: string, value: unknown): void {
  target[key] = value;
}
/** A hook that changes only the entry at `index`. */
function onEntry(index: number, change: (entry: JsonObject) => void): (entry: JsonObject, i: number) => void {
  return (entry, i) => {
    if (i === index) change(entry);
  };
}
const sha256Text = (text: string) => `sha256:${hexDigest('sha256', text)}`;
const sha3Text = (text: string) => `sha3-256:${hexDigest('sha3-256', text)}`;
const OTHER_NONCE = hexDigest('sha256', 'another session');
const LONG_AGO = new Date(CORPUS_NOW.getTime() - 800 * 86_400_000).toISOString();
const YESTERDAY = new Date(CORPUS_NOW.getTime() - 86_400_000).toISOString();

function flipClassical(sig: JsonObject): void {
  const half = o(sig['classical']);
  half['sig_b64'] = flipSignature(half['sig_b64']);
}

function flipPq(sig: JsonObject): void {
  const half = o(sig['pq']);
  half['sig_b64'] = flipSignature(half['sig_b64']);
}

const STANDARD_BASES: readonly BaseName[] = [
  'v2-proto-spec-standard',
  'v2-proto-sdk-standard',
  'v2-dcp-ai-sdk-standard',
  'v2-dcp-ai-spec-standard',
];

const POLICY = {
  default_mode: 'hybrid_preferred',
  risk_overrides: { low: 'classical_only', medium: 'hybrid_preferred', high: 'hybrid_required' },
  min_accepted_version: '1.0',
  accepted_algorithms: { signing: ['ed25519', 'ml-dsa-65'], hash: ['sha256', 'sha3-256'] },
};

const baselines: CaseSpec[] = [
  ...STANDARD_BASES.map(
    (base): CaseSpec => ({
      id: `valid-${base}`,
      description: `unmodified ${base}: every check passes`,
      base,
      expect: { verified: true, tier: 'standard', checks: { pq_sig: 'pass', checkpoints: 'pass' } },
    }),
  ),
  {
    id: 'valid-v2-proto-spec-elevated',
    description:
      'elevated bundle (send_email with contact_info, policy risk_score 650: P1) resolves to elevated',
    base: 'v2-proto-spec-elevated',
    expect: { verified: true, tier: 'elevated' },
  },
  {
    id: 'valid-v2-dcp-ai-sdk-maximum',
    description: 'maximum bundle (payment with credentials), a checkpoint per entry',
    base: 'v2-dcp-ai-sdk-maximum',
    expect: { verified: true, tier: 'maximum', checks: { checkpoints: 'pass' } },
  },
  {
    id: 'valid-v2-routine-hybrid-classical-only-mode',
    description: 'routine hybrid bundle under VERIFIER_MODE classical_only: PQ halves are not evaluated',
    base: 'v2-proto-spec-routine',
    verifier: { mode: 'classical_only' },
    expect: { verified: true, tier: 'routine', checks: { pq_sig: 'skipped' } },
  },
  {
    id: 'valid-v2-routine-hybrid-default-mode',
    description: 'routine hybrid bundle under the default mode: the operator floor raises it to standard',
    base: 'v2-proto-spec-routine',
    expect: { verified: true, tier: 'standard', checks: { pq_sig: 'pass' } },
  },
  {
    id: 'valid-v2-standard-hybrid-required-mode',
    description: 'standard bundle under hybrid_required: the floor raises it to elevated, both halves verify',
    base: 'v2-proto-spec-standard',
    verifier: { mode: 'hybrid_required' },
    expect: { verified: true, tier: 'elevated' },
  },
  {
    id: 'valid-v2-sdk-no-dual-hash',
    description: 'sdk bundle without the SHA3 chain fields or secondary root (they are optional)',
    base: 'v2-proto-sdk-standard',
    build: () => ({ dualHash: false }),
    expect: { verified: true, tier: 'standard' },
  },
  {
    id: 'valid-v2-spec-no-checkpoints',
    description: 'standard bundle without PQ checkpoints (optional below maximum)',
    base: 'v2-proto-spec-standard',
    build: () => ({ checkpointInterval: 0 }),
    expect: { verified: true, tier: 'standard', checks: { checkpoints: 'absent' } },
  },
  {
    id: 'valid-v2-intended-verifier-listed',
    description: 'manifest names an intended_verifier; this verifier does not require audience binding',
    base: 'v2-dcp-ai-sdk-standard',
    build: () => ({ hooks: { manifest: (m) => set(m, 'intended_verifier', 'verifier.example.org') } }),
    expect: { verified: true, tier: 'standard' },
  },
  {
    id: 'valid-v2-unused-revoked-key',
    description: 'passport also lists a revoked key that signed nothing: a warning, not a failure (D8)',
    base: 'v2-proto-spec-standard',
    build: () => ({
      hooks: {
        payloads: (p) => {
          const revoked = keyEntry(KEYS.other.classical, YESTERDAY, null);
          revoked['status'] = 'revoked';
          (p.agent_passport['keys'] as JsonObject[]).push(revoked);
        },
      },
    }),
    expect: { verified: true, tier: 'standard', warnings: true },
  },
  {
    id: 'valid-v1',
    description: 'unmodified V1 bundle (float risk_score, bare-hex chain)',
    base: 'v1-standard',
    expect: { verified: true, checks: { bundle_hash: 'pass', merkle_root: 'pass' } },
  },
  {
    id: 'valid-v1-dcp-ai-profile',
    description: 'V1 signatures carry no context, so the dcp-ai profile verifies the same V1 bundle',
    base: 'v1-standard',
    verifier: { profile: 'dcp-ai' },
    expect: { verified: true },
  },
  {
    id: 'valid-v1-no-merkle-root',
    description: 'V1 merkle_root is optional: null is not checked',
    base: 'v1-standard',
    tamper: (s) => set(signatureOf(s), 'merkle_root', null),
    expect: { verified: true, checks: { merkle_root: 'absent' } },
  },
  {
    id: 'valid-v1-key-from-request',
    description: 'V1 signature without signer.public_key_b64: the request public_key_b64 is used (D11)',
    base: 'v1-standard',
    tamper: (s) => void delete o(signatureOf(s)['signer'])['public_key_b64'],
    request: { public_key_b64: Buffer.from(KEYS.principal.classical.publicKey).toString('base64') },
    expect: { verified: true },
  },
];

/** The same bundles under different modes: where the verdicts differ (D9, D10). */
const modes: CaseSpec[] = [
  ...(['classical_only', 'hybrid_preferred', 'hybrid_required', 'pq_only'] as const).map(
    (mode): CaseSpec => ({
      id: `mode-${mode}-classical-only-bundle`,
      description: `Ed25519-only routine bundle under ${mode}`,
      base: 'v2-proto-spec-routine-classical',
      verifier: { mode },
      expect: {
        classical_only: { verified: true, tier: 'routine', checks: { pq_sig: 'skipped' } } as const,
        hybrid_preferred: {
          verified: true,
          tier: 'standard',
          checks: { pq_sig: 'absent' },
          warnings: true,
        } as const,
        hybrid_required: {
          verified: false,
          tier: 'elevated',
          fails: ['artifact_sigs', 'pq_sig'],
          errors: [['pq_sig', 'SIGNATURE_MISSING']],
        } as const,
        pq_only: {
          verified: false,
          tier: 'elevated',
          fails: ['artifact_sigs', 'pq_sig'],
          errors: [['pq_sig', 'SIGNATURE_MISSING']],
        } as const,
      }[mode],
    }),
  ),
  ...(['classical_only', 'hybrid_preferred', 'hybrid_required'] as const).map(
    (mode): CaseSpec => ({
      id: `mode-${mode}-tampered-pq-half`,
      description: `routine hybrid bundle whose bundle-signature ML-DSA half is corrupted, under ${mode}`,
      base: 'v2-proto-spec-routine',
      tamper: (s) => flipPq(compositeOf(signatureOf(s))),
      verifier: { mode },
      expect:
        mode === 'classical_only'
          ? { verified: true, tier: 'routine', checks: { pq_sig: 'skipped' } }
          : {
              verified: false,
              tier: mode === 'hybrid_required' ? 'elevated' : 'standard',
              fails: ['pq_sig'],
              errors: [['pq_sig', 'PQ_SIG_INVALID']],
            },
    }),
  ),
  {
    id: 'mode-pq_only-hybrid-bundle',
    description: 'hybrid bundle under pq_only: ML-DSA halves decide, all valid',
    base: 'v2-proto-spec-standard',
    verifier: { mode: 'pq_only' },
    expect: { verified: true, tier: 'elevated' },
  },
  ...(['classical_only', 'hybrid_preferred'] as const).map(
    (mode): CaseSpec => ({
      id: `mode-${mode}-stripped-pq`,
      description: `bundle signature with pq removed but binding still pq_over_classical (stripping), under ${mode}`,
      base: 'v2-proto-spec-routine',
      tamper: (s) => set(compositeOf(signatureOf(s)), 'pq', null),
      verifier: { mode },
      expect: {
        verified: false,
        tier: mode === 'classical_only' ? 'routine' : 'standard',
        fails: ['pq_sig'],
        errors: [['pq_sig', 'COMPOSITE_BINDING_INVALID']],
      },
    }),
  ),
  ...(['classical_only', 'hybrid_preferred', 'hybrid_required'] as const).map(
    (mode): CaseSpec => ({
      id: `mode-${mode}-stripped-and-downgraded`,
      description: `bundle signature with pq removed and binding rewritten to classical_only, under ${mode}`,
      base: 'v2-proto-spec-routine',
      tamper: (s) => {
        const sig = compositeOf(signatureOf(s));
        sig['pq'] = null;
        sig['binding'] = 'classical_only';
      },
      verifier: { mode },
      expect: {
        classical_only: { verified: true, tier: 'routine', checks: { pq_sig: 'skipped' } } as const,
        hybrid_preferred: {
          verified: true,
          tier: 'standard',
          checks: { pq_sig: 'absent' },
          warnings: true,
        } as const,
        hybrid_required: {
          verified: false,
          tier: 'elevated',
          fails: ['pq_sig'],
          errors: [['pq_sig', 'SIGNATURE_MISSING']],
        } as const,
      }[mode],
    }),
  ),
  {
    id: 'policy-risk-override-raises-tier',
    description:
      'VerifierPolicy maps passport risk_tier medium to hybrid_required: standard bundle resolves elevated',
    base: 'v2-proto-spec-standard',
    verifier: {
      policy: { ...POLICY, risk_overrides: { ...POLICY.risk_overrides, medium: 'hybrid_required' } },
    },
    expect: { verified: true, tier: 'elevated' },
  },
  {
    id: 'tier-policy-risk-score-raises',
    description:
      'routine bundle whose policy decision says risk_score 650 (resolved_tier still routine): the intent scores elevated (P1, D10)',
    base: 'v2-proto-spec-routine',
    build: () => ({ hooks: { payloads: (p) => set(p.policy_decision, 'risk_score', 650) } }),
    verifier: { mode: 'classical_only' },
    expect: { verified: true, tier: 'elevated' },
  },
  {
    id: 'tier-impact-and-action-do-not-score',
    description:
      'routine bundle whose intent is execute_code/high (800 by the gateway formula) with policy risk_score 100: routine (P1)',
    base: 'v2-proto-spec-routine',
    build: () => ({
      hooks: {
        payloads: (p) => {
          set(p.intent, 'action_type', 'execute_code');
          set(p.intent, 'estimated_impact', 'high');
        },
      },
    }),
    verifier: { mode: 'classical_only' },
    expect: { verified: true, tier: 'routine', checks: { pq_sig: 'skipped' } },
  },
  {
    id: 'policy-risk-override-rejects-classical',
    description: 'VerifierPolicy maps risk_tier low to hybrid_required: an Ed25519-only bundle fails',
    base: 'v2-proto-spec-routine-classical',
    verifier: { policy: { ...POLICY, risk_overrides: { ...POLICY.risk_overrides, low: 'hybrid_required' } } },
    expect: {
      verified: false,
      tier: 'elevated',
      fails: ['artifact_sigs', 'pq_sig'],
      errors: [['pq_sig', 'SIGNATURE_MISSING']],
    },
  },
];

/** V2: for every check, a bundle that fails that check alone (everything else re-signed valid). */
const v2Single: CaseSpec[] = [
  // schema
  {
    id: 'schema-entry-extra-member',
    description:
      'audit entry stores primary_hash (computed, never stored: D7); chain and signatures cover it',
    base: 'v2-proto-spec-standard',
    build: () => ({ hooks: { entry: onEntry(1, (e) => set(e, 'primary_hash', sha256Text('x'))) } }),
    expect: { verified: false, fails: ['schema'], errors: [['schema', 'ARTIFACT_SCHEMA_INVALID']] },
  },
  {
    id: 'schema-intent-risk-score',
    description: 'V2 intent carries risk_score (forbidden by the intent schema), signed',
    base: 'v2-proto-sdk-standard',
    build: () => ({ hooks: { payloads: (p) => set(p.intent, 'risk_score', 100) } }),
    expect: { verified: false, fails: ['schema'], errors: [['schema', 'ARTIFACT_SCHEMA_INVALID']] },
  },
  {
    id: 'schema-manifest-unknown-member',
    description: 'manifest has a member neither SPEC.md nor the SDK defines, signed',
    base: 'v2-dcp-ai-spec-standard',
    build: () => ({ hooks: { manifest: (m) => set(m, 'bundle_note', 'extra') } }),
    expect: { verified: false, fails: ['schema'], errors: [['schema', 'BUNDLE_SCHEMA_INVALID']] },
  },
  {
    id: 'schema-empty-audit-trail',
    description: 'no audit entries (D7: V2 requires at least one)',
    base: 'v2-proto-spec-standard',
    tamper: (s) => set(bundleOf(s), 'audit_entries', []),
    expect: { verified: false, fails: ['schema'], errors: [['schema', 'BUNDLE_SCHEMA_INVALID']] },
  },
  {
    id: 'schema-float-in-policy',
    description: 'risk_score 350.5 in the policy payload: not canonical JSON (D2), reported, never thrown',
    base: 'v2-proto-spec-standard',
    tamper: (s) => set(o(artifactOf(s, 'policy_decision')['payload']), 'risk_score', 350.5),
    expect: { verified: false, fails: ['schema'], errors: [['schema', 'ARTIFACT_SCHEMA_INVALID']] },
  },
  {
    id: 'version-unsupported',
    description: 'dcp_bundle_version 3.0',
    base: 'v2-proto-spec-standard',
    tamper: (s) => set(bundleOf(s), 'dcp_bundle_version', '3.0'),
    expect: { verified: false, errors: [['version', 'VERSION_UNSUPPORTED']] },
  },
  // classical_sig
  {
    id: 'classical-sig-invalid-pq-valid',
    description:
      'bundle signature: Ed25519 half invalid, ML-DSA half valid over DSM ‖ that classical signature',
    base: 'v2-proto-spec-standard',
    tamper: (s, kit) =>
      set(signatureOf(s), 'composite_sig', kit.signWithBadClassical(kit.principal, 'Bundle', manifestOf(s))),
    expect: {
      verified: false,
      tier: 'standard',
      fails: ['classical_sig'],
      errors: [['classical_sig', 'CLASSICAL_SIG_INVALID']],
    },
  },
  {
    id: 'classical-sig-invalid-classical-only-mode',
    description: 'routine bundle under classical_only with a corrupted Ed25519 bundle signature',
    base: 'v2-proto-spec-routine',
    tamper: (s) => flipClassical(compositeOf(signatureOf(s))),
    verifier: { mode: 'classical_only' },
    expect: {
      verified: false,
      tier: 'routine',
      fails: ['classical_sig'],
      errors: [['classical_sig', 'CLASSICAL_SIG_INVALID']],
      checks: { pq_sig: 'skipped' },
    },
  },
  {
    id: 'classical-sig-wrong-signer',
    description: 'manifest signed by a key the bundle does not publish (kids of an unknown key)',
    base: 'v2-proto-sdk-standard',
    tamper: (s, kit) => set(signatureOf(s), 'composite_sig', kit.sign(kit.other, 'Bundle', manifestOf(s))),
    expect: {
      verified: false,
      fails: ['classical_sig', 'pq_sig'],
      errors: [
        ['classical_sig', 'KID_MISMATCH'],
        ['pq_sig', 'KID_MISMATCH'],
      ],
    },
  },
  // pq_sig
  ...STANDARD_BASES.map(
    (base): CaseSpec => ({
      id: `pq-sig-invalid-${base}`,
      description:
        'bundle signature ML-DSA half corrupted; Ed25519 half valid (hybrid_preferred: present PQ must verify, D9)',
      base,
      tamper: (s) => flipPq(compositeOf(signatureOf(s))),
      expect: {
        verified: false,
        tier: 'standard',
        fails: ['pq_sig'],
        errors: [['pq_sig', 'PQ_SIG_INVALID']],
      },
    }),
  ),
  // manifest_integrity
  ...STANDARD_BASES.map(
    (base): CaseSpec => ({
      id: `manifest-audit-count-${base}`,
      description: 'signed manifest says audit_count 3 for 2 entries',
      base,
      build: () => ({ hooks: { manifest: (m) => set(m, 'audit_count', 3) } }),
      expect: {
        verified: false,
        fails: ['manifest_integrity'],
        errors: [['manifest_integrity', 'MANIFEST_HASH_MISMATCH']],
      },
    }),
  ),
  {
    id: 'manifest-primary-root-wrong',
    description: 'signed manifest audit_merkle_root does not match the entries',
    base: 'v2-proto-spec-standard',
    build: () => ({ hooks: { manifest: (m) => set(m, 'audit_merkle_root', sha256Text('other root')) } }),
    expect: {
      verified: false,
      fails: ['manifest_integrity'],
      errors: [['manifest_integrity', 'MERKLE_ROOT_MISMATCH']],
    },
  },
  {
    id: 'manifest-secondary-root-wrong',
    description: 'signed manifest audit_merkle_root_secondary does not match the entries (D7)',
    base: 'v2-proto-sdk-standard',
    build: () => ({
      hooks: { manifest: (m) => set(m, 'audit_merkle_root_secondary', sha3Text('other root')) },
    }),
    expect: {
      verified: false,
      fails: ['manifest_integrity'],
      errors: [['manifest_integrity', 'MERKLE_ROOT_MISMATCH']],
    },
  },
  {
    id: 'manifest-rpr-hash-wrong',
    description: 'signed manifest rpr_hash names another RPR',
    base: 'v2-dcp-ai-sdk-standard',
    build: () => ({ hooks: { manifest: (m) => set(m, 'rpr_hash', sha256Text('another rpr')) } }),
    expect: {
      verified: false,
      fails: ['manifest_integrity'],
      errors: [['manifest_integrity', 'MANIFEST_HASH_MISMATCH']],
    },
  },
  {
    id: 'manifest-hash-metadata-wrong',
    description: 'signature.manifest_hash (unsigned metadata) does not match jcs(manifest) (D5)',
    base: 'v2-proto-spec-standard',
    tamper: (s) => set(signatureOf(s), 'manifest_hash', sha256Text('not the manifest')),
    expect: {
      verified: false,
      fails: ['manifest_integrity'],
      errors: [['manifest_integrity', 'MANIFEST_HASH_MISMATCH']],
    },
  },
  {
    id: 'manifest-checkpoint-count-wrong',
    description: 'spec manifest checkpoint_count 2 with one checkpoint, signed',
    base: 'v2-dcp-ai-spec-standard',
    build: () => ({ hooks: { manifest: (m) => set(m, 'checkpoint_count', 2) } }),
    expect: {
      verified: false,
      fails: ['manifest_integrity'],
      errors: [['manifest_integrity', 'MANIFEST_HASH_MISMATCH']],
    },
  },
  {
    id: 'manifest-unknown-canonicalization-profile',
    description: 'signed manifest declares canonicalization_profile dcp-jcs-v2 (D5)',
    base: 'v2-proto-sdk-standard',
    build: () => ({ hooks: { manifest: (m) => set(m, 'canonicalization_profile', 'dcp-jcs-v2') } }),
    expect: {
      verified: false,
      fails: ['manifest_integrity'],
      errors: [['manifest_integrity', 'VERSION_UNSUPPORTED']],
    },
  },
  {
    id: 'manifest-payload-hash-wrong',
    description: 'intent payload_hash (and the manifest intent_hash) do not hash the payload',
    base: 'v2-proto-spec-standard',
    build: () => ({
      hooks: { artifacts: (a) => set(a.intent, 'payload_hash', sha256Text('another intent')) },
    }),
    expect: {
      verified: false,
      fails: ['manifest_integrity'],
      errors: [['manifest_integrity', 'MANIFEST_HASH_MISMATCH']],
    },
  },
  // hash_chain
  ...STANDARD_BASES.map(
    (base): CaseSpec => ({
      id: `hash-chain-prev-hash-${base}`,
      description:
        'entry 1 prev_hash is not the hash of entry 0; roots, checkpoint and manifest re-signed over it',
      base,
      build: () => ({ hooks: { entries: (es) => set(o(es[1]), 'prev_hash', sha256Text('not entry 0')) } }),
      expect: {
        verified: false,
        tier: 'standard',
        fails: ['hash_chain'],
        errors: [['hash_chain', 'HASH_CHAIN_BROKEN']],
      },
    }),
  ),
  {
    id: 'hash-chain-secondary-broken',
    description: 'entry 1 prev_hash_secondary is not the SHA3-256 of entry 0 (D7: checked when present)',
    base: 'v2-proto-sdk-standard',
    build: () => ({
      hooks: { entries: (es) => set(o(es[1]), 'prev_hash_secondary', sha3Text('not entry 0')) },
    }),
    expect: { verified: false, fails: ['hash_chain'], errors: [['hash_chain', 'DUAL_HASH_MISMATCH']] },
  },
  {
    id: 'hash-chain-no-genesis',
    description: 'entry 0 prev_hash is a hash instead of GENESIS',
    base: 'v2-proto-spec-standard',
    build: () => ({
      hooks: { entries: (es) => set(o(es[0]), 'prev_hash', sha256Text('before genesis')) },
    }),
    expect: { verified: false, fails: ['hash_chain'], errors: [['hash_chain', 'HASH_CHAIN_BROKEN']] },
  },
  {
    id: 'hash-chain-entries-swapped',
    description: 'the two entries in swapped order (roots re-computed over the new order)',
    base: 'v2-dcp-ai-spec-standard',
    build: () => ({ hooks: { entries: (es) => void es.reverse() } }),
    expect: { verified: false, fails: ['hash_chain'], errors: [['hash_chain', 'HASH_CHAIN_BROKEN']] },
  },
  // intent_hash
  {
    id: 'intent-hash-wrong',
    description: 'entry 1 intent_hash names another intent (chained and signed)',
    base: 'v2-proto-spec-standard',
    build: () => ({
      hooks: { entry: onEntry(1, (e) => set(e, 'intent_hash', sha256Text('another intent'))) },
    }),
    expect: { verified: false, fails: ['intent_hash'], errors: [['intent_hash', 'INTENT_HASH_MISMATCH']] },
  },
  {
    id: 'intent-hash-secondary-wrong',
    description: 'entry 0 intent_hash_secondary is not the SHA3-256 of the intent (D7)',
    base: 'v2-dcp-ai-sdk-standard',
    build: () => ({
      hooks: { entry: onEntry(0, (e) => set(e, 'intent_hash_secondary', sha3Text('x'))) },
    }),
    expect: { verified: false, fails: ['intent_hash'], errors: [['intent_hash', 'INTENT_HASH_MISMATCH']] },
  },
  // session_nonce
  {
    id: 'session-nonce-entry-mismatch',
    description: 'entry 1 carries another session nonce (chained and signed)',
    base: 'v2-proto-spec-standard',
    build: () => ({ hooks: { entry: onEntry(1, (e) => set(e, 'session_nonce', OTHER_NONCE)) } }),
    expect: {
      verified: false,
      fails: ['session_nonce'],
      errors: [['session_nonce', 'SESSION_NONCE_INVALID']],
    },
  },
  {
    id: 'session-nonce-artifact-mismatch',
    description: 'policy decision signed for another session (session splicing)',
    base: 'v2-dcp-ai-sdk-standard',
    build: () => ({ hooks: { payloads: (p) => set(p.policy_decision, 'session_nonce', OTHER_NONCE) } }),
    expect: {
      verified: false,
      fails: ['session_nonce'],
      errors: [['session_nonce', 'SESSION_NONCE_INVALID']],
    },
  },
  {
    id: 'session-nonce-checkpoint-mismatch',
    description: 'checkpoint signed with another session nonce',
    base: 'v2-proto-sdk-standard',
    build: (kit) => ({
      hooks: {
        checkpoints: (cs) => {
          const c = o(cs[0]);
          c['session_nonce'] = OTHER_NONCE;
          kit.resignCheckpoint(c);
        },
      },
    }),
    expect: {
      verified: false,
      fails: ['session_nonce'],
      errors: [['session_nonce', 'SESSION_NONCE_INVALID']],
    },
  },
  {
    id: 'session-expired',
    description: 'session_expires_at one minute before the build time (E501)',
    base: 'v2-proto-spec-standard',
    build: () => ({ sessionTtlSeconds: -60 }),
    expect: { verified: false, fails: ['session_nonce'], errors: [['session_nonce', 'SESSION_EXPIRED']] },
  },
  // artifact_sigs
  ...STANDARD_BASES.map(
    (base): CaseSpec => ({
      id: `artifact-sig-classical-${base}`,
      description: 'intent composite signature: Ed25519 half corrupted',
      base,
      tamper: (s) => flipClassical(compositeOf(artifactOf(s, 'intent'))),
      expect: {
        verified: false,
        fails: ['artifact_sigs'],
        errors: [['artifact_sigs', 'CLASSICAL_SIG_INVALID']],
      },
    }),
  ),
  {
    id: 'artifact-sig-pq',
    description: 'passport composite signature: ML-DSA half corrupted (present PQ must verify, D9)',
    base: 'v2-proto-spec-standard',
    tamper: (s) => flipPq(compositeOf(artifactOf(s, 'agent_passport'))),
    expect: { verified: false, fails: ['artifact_sigs'], errors: [['artifact_sigs', 'PQ_SIG_INVALID']] },
  },
  {
    id: 'artifact-sig-wrong-context',
    description:
      'intent signed under the PolicyDecision context instead of Intent (cross-context replay, D8)',
    base: 'v2-proto-sdk-standard',
    tamper: (s, kit) => {
      const intent = artifactOf(s, 'intent');
      intent['composite_sig'] = kit.sign(kit.agent, 'PolicyDecision', intent['payload']);
    },
    expect: {
      verified: false,
      fails: ['artifact_sigs'],
      errors: [['artifact_sigs', 'CLASSICAL_SIG_INVALID']],
    },
  },
  {
    id: 'artifact-sig-rpr-stripped',
    description: 'RPR signature with pq null but binding pq_over_classical (stripping)',
    base: 'v2-dcp-ai-spec-standard',
    tamper: (s) => set(compositeOf(artifactOf(s, 'responsible_principal_record')), 'pq', null),
    expect: {
      verified: false,
      fails: ['artifact_sigs'],
      errors: [['artifact_sigs', 'COMPOSITE_BINDING_INVALID']],
    },
  },
  // checkpoints
  {
    id: 'checkpoint-spec-root-wrong',
    description: 'spec checkpoint audit_state.primary_merkle_root wrong, re-signed',
    base: 'v2-proto-spec-elevated',
    build: (kit) => ({
      hooks: {
        checkpoints: (cs) => {
          const c = o(cs[1]);
          o(c['audit_state'])['primary_merkle_root'] = sha256Text('other');
          kit.resignCheckpoint(c);
        },
      },
    }),
    expect: { verified: false, fails: ['checkpoints'], errors: [['checkpoints', 'MERKLE_ROOT_MISMATCH']] },
  },
  {
    id: 'checkpoint-spec-entry-count-wrong',
    description: 'spec checkpoint audit_state.entry_count 2 where it covers 1 entry, re-signed',
    base: 'v2-proto-spec-elevated',
    build: (kit) => ({
      hooks: {
        checkpoints: (cs) => {
          const c = o(cs[0]);
          o(c['audit_state'])['entry_count'] = 2;
          kit.resignCheckpoint(c);
        },
      },
    }),
    expect: { verified: false, fails: ['checkpoints'] },
  },
  {
    id: 'checkpoint-sdk-root-wrong',
    description: 'sdk checkpoint merkle_root wrong, re-signed',
    base: 'v2-proto-sdk-standard',
    build: (kit) => ({
      hooks: {
        checkpoints: (cs) => {
          const c = o(cs[0]);
          c['merkle_root'] = sha256Text('other');
          kit.resignCheckpoint(c);
        },
      },
    }),
    expect: { verified: false, fails: ['checkpoints'], errors: [['checkpoints', 'MERKLE_ROOT_MISMATCH']] },
  },
  {
    id: 'checkpoint-sdk-count-wrong',
    description: 'sdk checkpoint event_range.count 3 for 2 covered entries, re-signed',
    base: 'v2-dcp-ai-sdk-standard',
    build: (kit) => ({
      hooks: {
        checkpoints: (cs) => {
          const c = o(cs[0]);
          o(c['event_range'])['count'] = 3;
          kit.resignCheckpoint(c);
        },
      },
    }),
    expect: { verified: false, fails: ['checkpoints'] },
  },
  {
    id: 'checkpoint-pq-half-corrupted',
    description: 'checkpoint ML-DSA half corrupted',
    base: 'v2-dcp-ai-sdk-maximum',
    tamper: (s) => flipPq(compositeOf(o(checkpointsOf(s)[1]))),
    expect: {
      verified: false,
      tier: 'maximum',
      fails: ['checkpoints'],
      errors: [['checkpoints', 'PQ_SIG_INVALID']],
    },
  },
  {
    id: 'checkpoint-without-pq-signature',
    description: 'checkpoint re-signed with Ed25519 only in a hybrid bundle (D6: both halves required)',
    base: 'v2-proto-spec-elevated',
    build: (kit) => ({
      hooks: {
        checkpoints: (cs) => kit.resignCheckpoint(o(cs[0]), { ...kit.agent, classicalOnly: true }),
      },
    }),
    expect: { verified: false, fails: ['checkpoints'], errors: [['checkpoints', 'SIGNATURE_MISSING']] },
  },
  {
    id: 'checkpoint-ids-not-in-manifest',
    description:
      'sdk manifest lists one of two checkpoint ids (a removed checkpoint exposes a downgrade, D6)',
    base: 'v2-proto-sdk-standard',
    build: () => ({
      checkpointInterval: 1,
      hooks: { manifest: (m) => set(m, 'pq_checkpoints', (m['pq_checkpoints'] as string[]).slice(0, 1)) },
    }),
    expect: { verified: false, fails: ['manifest_integrity'] },
  },
  {
    id: 'checkpoint-maximum-missing',
    description: 'maximum tier without PQ checkpoints (D6: required at maximum)',
    base: 'v2-dcp-ai-sdk-maximum',
    build: () => ({ checkpointInterval: 0 }),
    expect: { verified: false, tier: 'maximum', fails: ['checkpoints'] },
  },
  {
    id: 'checkpoint-maximum-interval-2',
    description: 'maximum tier with one checkpoint over two entries (D6: interval 1 at maximum)',
    base: 'v2-dcp-ai-sdk-maximum',
    build: () => ({ checkpointInterval: 2 }),
    expect: { verified: false, tier: 'maximum', fails: ['checkpoints'] },
  },
  // key_validity
  {
    id: 'key-revoked',
    description: 'the agent Ed25519 key that signed the artifacts is revoked in the passport',
    base: 'v2-proto-spec-standard',
    build: () => ({
      hooks: {
        payloads: (p) => set(o((p.agent_passport['keys'] as JsonObject[])[0]), 'status', 'revoked'),
      },
    }),
    expect: { verified: false, fails: ['key_validity'], errors: [['key_validity', 'KEY_REVOKED']] },
  },
  {
    id: 'key-expired',
    description: 'the principal keys that signed the bundle expired yesterday',
    base: 'v2-dcp-ai-sdk-standard',
    build: () => ({
      hooks: {
        payloads: (p) => {
          for (const key of p.responsible_principal_record['binding_keys'] as JsonObject[])
            key['expires_at'] = YESTERDAY;
        },
      },
    }),
    expect: { verified: false, fails: ['key_validity'], errors: [['key_validity', 'KEY_EXPIRED']] },
  },
  {
    id: 'key-too-old',
    description: 'agent keys created 800 days ago (MAX_KEY_AGE_DAYS 365, D8)',
    base: 'v2-proto-sdk-standard',
    build: () => ({
      hooks: {
        payloads: (p) => {
          for (const key of p.agent_passport['keys'] as JsonObject[]) {
            key['created_at'] = LONG_AGO;
            key['expires_at'] = null;
          }
        },
      },
    }),
    expect: { verified: false, fails: ['key_validity'], errors: [['key_validity', 'KEY_EXPIRED']] },
  },
  {
    id: 'key-kid-not-derived',
    description: 'the agent Ed25519 kid is not derived from its key (kid of another key), used consistently',
    base: 'v2-proto-spec-standard',
    build: () => ({
      keys: {
        principal: KEYS.principal,
        agent: { ...KEYS.agent, classical: { ...KEYS.agent.classical, kid: KEYS.other.classical.kid } },
      },
    }),
    expect: { verified: false, fails: ['key_validity'], errors: [['key_validity', 'KID_MISMATCH']] },
  },
  {
    id: 'passport-suspended',
    description: 'passport status suspended (D8: must be active)',
    base: 'v2-proto-spec-standard',
    build: () => ({ hooks: { payloads: (p) => set(p.agent_passport, 'status', 'suspended') } }),
    expect: { verified: false, fails: ['key_validity'], errors: [['key_validity', 'AGENT_REVOKED']] },
  },
  {
    id: 'rpr-expired',
    description: 'responsible principal record expired yesterday (D8)',
    base: 'v2-dcp-ai-sdk-standard',
    build: () => ({
      hooks: { payloads: (p) => set(p.responsible_principal_record, 'expires_at', YESTERDAY) },
    }),
    expect: { verified: false, fails: ['key_validity'], errors: [['key_validity', 'RPR_INVALID']] },
  },
  // profiles
  {
    id: 'profile-dcp-ai-bundle-under-proto',
    description: 'DCP-AI.v2.* signatures verified under the proto profile (PROTO.v2.* contexts)',
    base: 'v2-dcp-ai-sdk-standard',
    verifier: { profile: 'proto' },
    expect: {
      verified: false,
      fails: ['artifact_sigs', 'checkpoints', 'classical_sig', 'pq_sig'],
      errors: [['classical_sig', 'CLASSICAL_SIG_INVALID']],
    },
  },
  {
    id: 'profile-proto-bundle-under-dcp-ai',
    description: 'PROTO.v2.* signatures verified under the dcp-ai profile',
    base: 'v2-proto-spec-standard',
    verifier: { profile: 'dcp-ai' },
    expect: {
      verified: false,
      fails: ['artifact_sigs', 'checkpoints', 'classical_sig', 'pq_sig'],
      errors: [['classical_sig', 'CLASSICAL_SIG_INVALID']],
    },
  },
];

/** V1: each V1 check failing alone (D11). */
const v1Single: CaseSpec[] = [
  {
    id: 'v1-signature-invalid',
    description: 'V1 Ed25519 signature corrupted',
    base: 'v1-standard',
    tamper: (s) => set(signatureOf(s), 'sig_b64', flipSignature(signatureOf(s)['sig_b64'])),
    expect: {
      verified: false,
      fails: ['classical_sig'],
      errors: [['classical_sig', 'CLASSICAL_SIG_INVALID']],
    },
  },
  {
    id: 'v1-signed-by-other-key',
    description: 'V1 bundle signed by another key than signer.public_key_b64',
    base: 'v1-standard',
    tamper: (s) => {
      const signer = o(signatureOf(s)['signer']);
      signer['public_key_b64'] = Buffer.from(KEYS.other.classical.publicKey).toString('base64');
    },
    expect: {
      verified: false,
      fails: ['classical_sig'],
      errors: [['classical_sig', 'CLASSICAL_SIG_INVALID']],
    },
  },
  {
    id: 'v1-bundle-hash-wrong',
    description: 'V1 signature.bundle_hash does not hash the bundle (signature itself valid)',
    base: 'v1-standard',
    tamper: (s) => set(signatureOf(s), 'bundle_hash', sha256Text('another bundle')),
    expect: { verified: false, fails: ['bundle_hash'], errors: [['bundle_hash', 'MANIFEST_HASH_MISMATCH']] },
  },
  {
    id: 'v1-merkle-root-wrong',
    description: 'V1 signature.merkle_root does not match the entries',
    base: 'v1-standard',
    tamper: (s) => set(signatureOf(s), 'merkle_root', sha256Text('another root')),
    expect: { verified: false, fails: ['merkle_root'], errors: [['merkle_root', 'MERKLE_ROOT_MISMATCH']] },
  },
  {
    id: 'v1-intent-hash-wrong',
    description: 'V1 entry 1 intent_hash names another intent (chained and signed)',
    base: 'v1-standard',
    build: () => ({
      hooks: { entry: onEntry(1, (e) => set(e, 'intent_hash', hexDigest('sha256', 'x'))) },
    }),
    expect: { verified: false, fails: ['intent_hash'], errors: [['intent_hash', 'INTENT_HASH_MISMATCH']] },
  },
  {
    id: 'v1-prev-hash-wrong',
    description: 'V1 entry 1 prev_hash is not the hash of entry 0 (signed)',
    base: 'v1-standard',
    build: () => ({ hooks: { entries: (es) => set(o(es[1]), 'prev_hash', hexDigest('sha256', 'x')) } }),
    expect: { verified: false, fails: ['hash_chain'], errors: [['hash_chain', 'HASH_CHAIN_BROKEN']] },
  },
  {
    id: 'v1-prefixed-prev-hash',
    description: 'V1 entry 1 prev_hash in the V2 prefixed form (V1 chains are bare hex, D3)',
    base: 'v1-standard',
    build: () => ({
      hooks: {
        bundle: (b) => {
          const e = o((b['audit_entries'] as JsonObject[])[1]);
          e['prev_hash'] = `sha256:${String(e['prev_hash'])}`;
        },
      },
    }),
    expect: { verified: false, fails: ['hash_chain'], errors: [['hash_chain', 'HASH_CHAIN_BROKEN']] },
  },
  {
    id: 'v1-schema-extra-member',
    description: 'V1 audit entry with a member the V1 schema does not allow (signed)',
    base: 'v1-standard',
    build: () => ({ hooks: { entry: onEntry(0, (e) => set(e, 'session_nonce', OTHER_NONCE)) } }),
    expect: { verified: false, fails: ['schema'], errors: [['schema', 'BUNDLE_SCHEMA_INVALID']] },
  },
  {
    id: 'v1-rpr-expired',
    description: 'V1 RPR expired yesterday (D11)',
    base: 'v1-standard',
    build: () => ({
      hooks: { payloads: (p) => set(p.responsible_principal_record, 'expires_at', YESTERDAY) },
    }),
    expect: { verified: false, fails: ['key_validity'], errors: [['key_validity', 'RPR_INVALID']] },
  },
  {
    id: 'v1-passport-revoked',
    description: 'V1 passport status revoked (D11)',
    base: 'v1-standard',
    build: () => ({ hooks: { payloads: (p) => set(p.agent_passport, 'status', 'revoked') } }),
    expect: { verified: false, fails: ['key_validity'], errors: [['key_validity', 'AGENT_REVOKED']] },
  },
  {
    id: 'v1-no-public-key',
    description: 'V1 signature without signer.public_key_b64 and no key in the request',
    base: 'v1-standard',
    tamper: (s) => void delete o(signatureOf(s)['signer'])['public_key_b64'],
    expect: { verified: false, fails: ['classical_sig'], errors: [['classical_sig', 'SIGNATURE_MISSING']] },
  },
  {
    id: 'v1-request-key-conflict',
    description: 'request public_key_b64 differs from the bundle signer key (D11: E303)',
    base: 'v1-standard',
    request: { public_key_b64: Buffer.from(KEYS.other.classical.publicKey).toString('base64') },
    expect: { verified: false, fails: ['classical_sig'], errors: [['classical_sig', 'KID_MISMATCH']] },
  },
  {
    id: 'v1-not-allowed',
    description: 'ALLOW_V1_BUNDLES=false rejects V1 (D11)',
    base: 'v1-standard',
    verifier: { allowV1Bundles: false },
    expect: { verified: false, errors: [['version', 'VERSION_UNSUPPORTED']] },
  },
  {
    id: 'v1-below-min-version',
    description: 'VerifierPolicy min_accepted_version 2.0 rejects V1 (D11)',
    base: 'v1-standard',
    verifier: { policy: { ...POLICY, min_accepted_version: '2.0' } },
    expect: { verified: false, errors: [['version', 'VERSION_UNSUPPORTED']] },
  },
];

export const CASES: readonly CaseSpec[] = [...baselines, ...modes, ...v2Single, ...v1Single];

export function caseProfile(spec: CaseSpec): ProfileName {
  return spec.verifier?.profile ?? baseProfile(spec.base);
}
