// The 40 upstream verifier cases (PROTOCOL §11) re-created as mutations of the upstream bundles and
// run under profile dcp-ai. Where our verdict differs from upstream's, the row says why (D-numbers, P1).
import { describe, expect, it } from 'vitest';
import {
  a,
  codes,
  flipB64,
  HAS_SHARED_VECTORS,
  type J,
  makeVerifier,
  NEGATIVE_RESULTS,
  o,
  readShared,
  reseal,
  type UpstreamName,
  upstream,
} from './test-support.ts';
import type { VerifierOptions } from './types.ts';

interface Row {
  readonly id: string;
  readonly base: UpstreamName;
  /** Re-creates the upstream mutation (re-sealing what upstream re-signed, see PROTOCOL §6.10). */
  readonly mutate?: (signed: J) => void;
  readonly options?: VerifierOptions;
  /** Our verdict under dcp-ai. */
  readonly verified: boolean;
  /** Our error codes, in order. */
  readonly codes: readonly string[];
  /** Upstream's verdict as recorded in the negative-results file ('threw' for an exception). */
  readonly upstream: boolean | 'threw';
  /** Why our verdict differs from upstream's. */
  readonly why?: string;
}

const B = 'basic_signed_by_rpr_keys' as const;
const DUAL = 'dual_hash_checkpoints_signed_by_agent_keys' as const;
const bundle = (s: J) => o(s['bundle']);
const manifest = (s: J) => o(bundle(s)['manifest']);
const bundleSig = (s: J) => o(o(s['signature'])['composite_sig']);
const entries = (s: J) => a(bundle(s)['audit_entries']);
const payload = (s: J, field: string) => o(o(bundle(s)[field])['payload']);
const HYBRID_REQUIRED: VerifierOptions = { mode: 'hybrid_required' };
const OTHER_KEY = 'L9cW+sKJxJUX5+0v/4flcOUwqw4YlfwItf2z6dnBS18=';

const ROWS: readonly Row[] = [
  { id: '00_baseline', base: B, verified: true, codes: [], upstream: true },
  {
    id: '00_baseline_hybrid_required',
    base: B,
    options: HYBRID_REQUIRED,
    verified: true,
    codes: [],
    upstream: true,
  },
  {
    id: '01_version',
    base: B,
    mutate: (s) => {
      bundle(s)['dcp_bundle_version'] = '1.0';
    },
    verified: false,
    codes: ['DCP-E003'],
    upstream: false,
  },
  {
    id: '02_payload_hash_mismatch',
    base: B,
    mutate: (s) => {
      o(bundle(s)['intent'])['payload_hash'] = `sha256:${'0'.repeat(64)}`;
    },
    verified: false,
    codes: ['DCP-E201'],
    upstream: false,
  },
  {
    id: '03_audit_nonce_mismatch',
    base: B,
    mutate: (s) => {
      entries(s)[1]!['session_nonce'] = 'b'.repeat(64);
      reseal(s, { signer: 'human', rechain: true });
    },
    verified: false,
    codes: ['DCP-E500'],
    upstream: false,
  },
  {
    id: '04_manifest_nonce_mismatch',
    base: B,
    mutate: (s) => {
      manifest(s)['session_nonce'] = 'c'.repeat(64);
      reseal(s, { signer: 'human' });
    },
    verified: false,
    // Every artifact and the audit entries now disagree with the manifest.
    codes: ['DCP-E500', 'DCP-E500', 'DCP-E500', 'DCP-E500', 'DCP-E500'],
    upstream: false,
  },
  {
    id: '05_session_expired',
    base: B,
    mutate: (s) => {
      manifest(s)['session_expires_at'] = '2020-01-01T00:00:00Z';
      reseal(s, { signer: 'human' });
    },
    verified: false,
    codes: ['DCP-E501'],
    upstream: false,
  },
  {
    id: '06_require_session_expiry',
    base: B,
    options: { requireSessionExpiry: true },
    verified: false,
    codes: ['DCP-E501'],
    upstream: false,
  },
  {
    id: '07_audience_required',
    base: B,
    options: { requireAudienceBinding: true, verifierId: 'verifier.example.org' },
    verified: false,
    codes: ['DCP-E401'],
    upstream: false,
  },
  {
    id: '07b_audience_mismatch',
    base: DUAL,
    options: { verifierId: 'other' },
    verified: false,
    codes: ['DCP-E401'],
    upstream: false,
  },
  {
    id: '08_unknown_profile',
    base: B,
    mutate: (s) => {
      manifest(s)['canonicalization_profile'] = 'dcp-jcs-v2';
      reseal(s, { signer: 'human' });
    },
    verified: false,
    codes: ['DCP-E003'],
    upstream: false,
  },
  {
    id: '09_manifest_rpr_hash',
    base: B,
    mutate: (s) => {
      manifest(s)['rpr_hash'] = `sha256:${'1'.repeat(64)}`;
      reseal(s, { signer: 'human', payloadHashes: false });
    },
    verified: false,
    codes: ['DCP-E201'],
    upstream: false,
  },
  {
    id: '10_merkle_root',
    base: B,
    mutate: (s) => {
      manifest(s)['audit_merkle_root'] = `sha256:${'9'.repeat(64)}`;
      reseal(s, { signer: 'human', roots: false });
    },
    verified: false,
    codes: ['DCP-E202'],
    upstream: false,
  },
  {
    id: '11_audit_count',
    base: B,
    mutate: (s) => {
      manifest(s)['audit_count'] = 7;
      reseal(s, { signer: 'human', roots: false });
    },
    verified: false,
    codes: ['DCP-E201'],
    upstream: false,
  },
  {
    id: '11b_tamper_last_audit_entry',
    base: B,
    mutate: (s) => {
      entries(s)[2]!['outcome'] = 'tampered';
    },
    verified: false,
    codes: ['DCP-E202'],
    upstream: false,
  },
  {
    id: '12_alg_not_accepted',
    base: B,
    mutate: (s) => {
      o(bundleSig(s)['classical'])['alg'] = 'ed448';
    },
    verified: false,
    // ed448 is no algorithm of ours (E901); the PQ half still verifies over the unchanged bytes.
    codes: ['DCP-E901'],
    upstream: false,
  },
  {
    id: '13_kid_not_found',
    base: B,
    mutate: (s) => {
      o(bundleSig(s)['classical'])['kid'] = 'f'.repeat(32);
    },
    verified: false,
    codes: ['DCP-E303'],
    upstream: false,
  },
  {
    id: '13b_pq_kid_not_found',
    base: B,
    mutate: (s) => {
      o(bundleSig(s)['pq'])['kid'] = 'e'.repeat(32);
    },
    verified: false,
    codes: ['DCP-E303'],
    upstream: false,
  },
  {
    id: '14_tampered_classical',
    base: B,
    mutate: (s) => {
      const c = o(bundleSig(s)['classical']);
      c['sig_b64'] = flipB64(c['sig_b64']);
    },
    verified: false,
    // The PQ half covers DSM ‖ classical signature, so it breaks too (PROTOCOL §4.2).
    codes: ['DCP-E100', 'DCP-E101'],
    upstream: false,
  },
  {
    id: '15_tampered_pq_default_policy',
    base: B,
    mutate: (s) => {
      const p = o(bundleSig(s)['pq']);
      p['sig_b64'] = flipB64(p['sig_b64']);
    },
    verified: false,
    codes: ['DCP-E101'],
    upstream: true,
    why: 'D9: a PQ signature that is present must verify in every hybrid mode (upstream hybrid_preferred only warns), also at the standard tier the bundle resolves to (P1)',
  },
  {
    id: '15b_tampered_pq_hybrid_required',
    base: B,
    options: HYBRID_REQUIRED,
    mutate: (s) => {
      const p = o(bundleSig(s)['pq']);
      p['sig_b64'] = flipB64(p['sig_b64']);
    },
    verified: false,
    codes: ['DCP-E101'],
    upstream: false,
  },
  {
    id: '16_stripped_pq_keep_binding',
    base: B,
    mutate: (s) => {
      bundleSig(s)['pq'] = null;
    },
    verified: false,
    // D9: stripping (E102) fails in every mode; at standard (P1) hybrid_preferred does not also need the half.
    codes: ['DCP-E102'],
    upstream: false,
  },
  {
    id: '17_stripped_pq_downgraded_default',
    base: B,
    mutate: (s) => {
      bundleSig(s)['pq'] = null;
      bundleSig(s)['binding'] = 'classical_only';
    },
    // P1: policy risk_score 350 makes the intent standard (D10: every candidate is standard), so
    // hybrid_preferred accepts the honest classical_only binding with warnings (D9), as upstream does.
    verified: true,
    codes: [],
    upstream: true,
  },
  {
    id: '17b_stripped_pq_downgraded_HR',
    base: B,
    options: HYBRID_REQUIRED,
    mutate: (s) => {
      bundleSig(s)['pq'] = null;
      bundleSig(s)['binding'] = 'classical_only';
    },
    verified: false,
    codes: ['DCP-E102', 'DCP-E103'],
    upstream: false,
  },
  {
    id: '18_binding_independent',
    base: B,
    mutate: (s) => {
      bundleSig(s)['binding'] = 'independent';
    },
    verified: false,
    // The composite_signature schema allows only the two bindings.
    codes: ['DCP-E001'],
    upstream: false,
  },
  {
    id: '19_signature_metadata_ignored',
    base: B,
    mutate: (s) => {
      const signature = o(s['signature']);
      signature['hash_alg'] = 'sha256+sha3-256';
      signature['created_at'] = '2030-01-01T00:00:00Z';
      signature['signer'] = { type: 'organization', id: 'someone-else', kids: ['0'.repeat(32)] };
      signature['manifest_hash'] = `sha256:${'7'.repeat(64)}`;
    },
    verified: false,
    codes: ['DCP-E201'],
    upstream: true,
    why: 'D5: signature.manifest_hash, when present, must equal sha256 of jcs(manifest); the other metadata stays unchecked (see the test below)',
  },
  {
    id: '20_artifact_sig_tampered_NOT_CHECKED',
    base: B,
    mutate: (s) => {
      const c = o(o(o(bundle(s)['intent'])['composite_sig'])['classical']);
      c['sig_b64'] = flipB64(c['sig_b64']);
    },
    verified: false,
    codes: ['DCP-E100', 'DCP-E101'],
    upstream: true,
    why: 'D8: each artifact composite signature is verified under its own context (upstream never checks them)',
  },
  {
    id: '21_audit_intent_hash_wrong_NOT_CHECKED',
    base: B,
    mutate: (s) => {
      entries(s)[0]!['intent_hash'] = `sha256:${'3'.repeat(64)}`;
      reseal(s, { signer: 'human', rechain: true });
    },
    verified: false,
    codes: ['DCP-E204'],
    upstream: true,
    why: 'D7: every entry intent_hash must be sha256 of jcs(intent payload) (upstream never checks it)',
  },
  {
    id: '22_prev_hash_break',
    base: B,
    mutate: (s) => {
      entries(s)[1]!['prev_hash'] = `sha256:${'2'.repeat(64)}`;
      reseal(s, { signer: 'human' });
    },
    verified: false,
    codes: ['DCP-E200'],
    upstream: false,
  },
  {
    id: '23_secondary_root_garbage_resigned_NOT_CHECKED',
    base: B,
    mutate: (s) => {
      manifest(s)['audit_merkle_root_secondary'] = `sha3-256:${'4'.repeat(64)}`;
      reseal(s, { signer: 'human', roots: false });
    },
    verified: false,
    codes: ['DCP-E202'],
    upstream: true,
    why: 'D7: audit_merkle_root_secondary is checked whenever present (upstream ignores it)',
  },
  {
    id: '24_checkpoint_tampered_NOT_CHECKED',
    base: DUAL,
    mutate: (s) => {
      o(a(bundle(s)['pq_checkpoints'])[0])['merkle_root'] = `sha256:${'5'.repeat(64)}`;
    },
    verified: false,
    // The signature covers the root (E100, E101) and the root is wrong (E202).
    codes: ['DCP-E100', 'DCP-E101', 'DCP-E202'],
    upstream: true,
    why: 'D6: a checkpoint that is present must verify: root over its entries and both signature halves (upstream ignores checkpoints)',
  },
  {
    id: '25_prev_hash_secondary_garbage_NOT_CHECKED',
    base: DUAL,
    mutate: (s) => {
      entries(s)[1]!['prev_hash_secondary'] = `sha3-256:${'6'.repeat(64)}`;
      reseal(s, { signer: 'agent', rechain: 'primary', checkpoints: true });
    },
    verified: false,
    codes: ['DCP-E203'],
    upstream: true,
    why: 'D7: prev_hash_secondary is checked whenever present (upstream checks only prev_hash)',
  },
  {
    id: '26_unused_revoked_key_in_passport',
    base: B,
    mutate: (s) => {
      a(payload(s, 'agent_passport')['keys']).push({
        kid: 'a'.repeat(32),
        alg: 'ed25519',
        public_key_b64: OTHER_KEY,
        created_at: '2026-05-01T00:00:00Z',
        expires_at: null,
        status: 'revoked',
      });
      reseal(s, { signer: 'human', resignArtifacts: ['agent_passport'] });
    },
    verified: true,
    codes: [],
    upstream: false,
    why: 'D8: a revoked key that signed nothing is a warning, not a failure (upstream fails every bundle of such a passport)',
  },
  {
    id: '27_expired_and_old_key',
    base: B,
    mutate: (s) => {
      const keys = a(payload(s, 'agent_passport')['keys']);
      keys[0]!['expires_at'] = '2020-01-01T00:00:00Z';
      keys[1]!['created_at'] = '2020-01-01T00:00:00Z';
      reseal(s, { signer: 'human', resignArtifacts: ['agent_passport'] });
    },
    verified: false,
    // Both agent keys sign the artifacts: one expired, one older than 365 days (upstream: warning).
    codes: ['DCP-E301', 'DCP-E301'],
    upstream: false,
  },
  {
    id: '28_risk_tier_high_tampered_pq',
    base: B,
    mutate: (s) => {
      payload(s, 'agent_passport')['risk_tier'] = 'high';
      reseal(s, { signer: 'human', resignArtifacts: ['agent_passport'] });
      const p = o(bundleSig(s)['pq']);
      p['sig_b64'] = flipB64(p['sig_b64']);
    },
    verified: false,
    codes: ['DCP-E101'],
    upstream: false,
  },
  {
    id: '29_risk_tier_low_tampered_classical',
    base: B,
    mutate: (s) => {
      payload(s, 'agent_passport')['risk_tier'] = 'low';
      reseal(s, { signer: 'human', resignArtifacts: ['agent_passport'] });
      const c = o(bundleSig(s)['classical']);
      c['sig_b64'] = flipB64(c['sig_b64']);
    },
    verified: false,
    codes: ['DCP-E100', 'DCP-E101'],
    upstream: false,
  },
  {
    id: '30_rpr_nonce_bad_format_payload_hash_first',
    base: B,
    mutate: (s) => {
      payload(s, 'responsible_principal_record')['session_nonce'] = 'NOT-A-NONCE';
    },
    verified: false,
    // The RPR payload fails its schema (nonce pattern) before any hash is compared.
    codes: ['DCP-E002'],
    upstream: false,
  },
  {
    id: '31_zero_audit_entries_resigned',
    base: B,
    mutate: (s) => {
      bundle(s)['audit_entries'] = [];
      reseal(s, { signer: 'human' });
    },
    verified: false,
    codes: ['DCP-E001'],
    upstream: true,
    why: 'D7: an empty audit trail fails schema (upstream skips the Merkle check for 0 entries and accepts)',
  },
  {
    id: '32_pq_only_policy',
    base: B,
    options: {
      policy: {
        default_mode: 'pq_only',
        risk_overrides: { low: 'pq_only', medium: 'pq_only', high: 'pq_only' },
      },
    },
    verified: true,
    codes: [],
    upstream: true,
  },
  {
    id: '33_float_in_manifest',
    base: B,
    mutate: (s) => {
      manifest(s)['note'] = 1.5;
    },
    verified: false,
    codes: ['DCP-E001'],
    upstream: 'threw',
    why: 'D2: no input makes the verifier throw; the unknown manifest member fails the bundle_manifest schema (E001)',
  },
];

describe.skipIf(!HAS_SHARED_VECTORS)('the 40 upstream verifier cases under dcp-ai', () => {
  const recorded = HAS_SHARED_VECTORS ? readShared<J>(NEGATIVE_RESULTS) : {};

  it('covers every recorded case, with the upstream verdict the file records', () => {
    expect(ROWS.map((r) => r.id).sort()).toEqual(Object.keys(recorded).sort());
    for (const row of ROWS) {
      const upstreamResult = o(recorded[row.id]);
      expect(row.upstream, row.id).toBe('threw' in upstreamResult ? 'threw' : upstreamResult['verified']);
      // A reason is given exactly where the verdicts differ.
      expect(row.why !== undefined, row.id).toBe(row.upstream !== row.verified);
    }
  });

  it.each(ROWS.map((row) => [row.id, row] as const))('%s', (_id, row) => {
    const signed = upstream(row.base);
    row.mutate?.(signed);
    const response = makeVerifier({ profile: 'dcp-ai', ...row.options }).verify({ signed_bundle: signed });
    expect({ verified: response.verified, codes: codes(response) }).toEqual({
      verified: row.verified,
      codes: row.codes,
    });
  });

  it("22: our chain-break message is upstream's, plus the count of later breaks (entry 2 no longer links)", () => {
    const signed = upstream(B);
    ROWS.find((r) => r.id === '22_prev_hash_break')!.mutate!(signed);
    const response = makeVerifier({ profile: 'dcp-ai' }).verify({ signed_bundle: signed });
    const [upstreamMessage] = a(o(recorded['22_prev_hash_break'])['errors']) as unknown as string[];
    expect(response.errors).toEqual([`${upstreamMessage} (and 1 more)`]);
  });

  it('19: signature metadata other than manifest_hash is not covered and not checked (PROTOCOL §6.3)', () => {
    const signed = upstream(B);
    const signature = o(signed['signature']);
    signature['hash_alg'] = 'sha256+sha3-256';
    signature['created_at'] = '2030-01-01T00:00:00Z';
    signature['signer'] = { type: 'organization', id: 'someone-else', kids: ['0'.repeat(32)] };
    expect(makeVerifier({ profile: 'dcp-ai' }).verify({ signed_bundle: signed }).verified).toBe(true);
  });

  it('26: the unused revoked key is reported as a warning', () => {
    const signed = upstream(B);
    ROWS.find((r) => r.id === '26_unused_revoked_key_in_passport')!.mutate!(signed);
    const response = makeVerifier({ profile: 'dcp-ai' }).verify({ signed_bundle: signed });
    expect(response.warnings).toContain(
      `Key ${'a'.repeat(32)} (passport) is revoked but signed nothing in this bundle`,
    );
  });

  it('17: the downgraded bundle verifies at standard with the absent-PQ and downgrade warnings (P1, D9)', () => {
    const signed = upstream(B);
    ROWS.find((r) => r.id === '17_stripped_pq_downgraded_default')!.mutate!(signed);
    const response = makeVerifier({ profile: 'dcp-ai' }).verify({ signed_bundle: signed });
    expect(response).toMatchObject({ verified: true, resolved_tier: 'standard' });
    expect(response.checks.pq_sig).toBe('absent');
    expect(response.warnings).toEqual([
      'Bundle signature: PQ signature absent (hybrid_preferred: accepted without post-quantum protection)',
      'Bundle signature: classical-only signature although the passport holds an ML-DSA-65 key (possible downgrade)',
    ]);
  });

  it('17 fails where the tier is elevated: an intent carrying a sensitive data class (PROTOCOL §6.7, D9, D10)', () => {
    // Same downgrade, but the intent re-signed with data class pii (elevated → hybrid_required).
    const signed = upstream(B);
    payload(signed, 'intent')['data_classes'] = ['pii'];
    reseal(signed, {
      signer: 'human',
      resignArtifacts: ['intent'],
      intentHashes: true,
      rechain: true,
      classicalOnly: true,
    });
    const response = makeVerifier({ profile: 'dcp-ai' }).verify({ signed_bundle: signed });
    expect(response).toMatchObject({ verified: false, resolved_tier: 'elevated' });
    expect(codes(response)).toEqual(['DCP-E102', 'DCP-E103']);
  });
});
