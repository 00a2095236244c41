// Builds a V1 Signed Bundle: V1 artifacts, bare-hex audit chain, merkle_root, bundle_hash and an
// Ed25519 signature over the V1-canonical bundle. PROTOCOL §1.2, §5, §10.1; DECISIONS D3, D11.
import { canonicalBytesV1 } from '../../canonical/index.ts';
import { encodeBase64 } from '../../encoding/index.ts';
import { hexDigest, prefixedHash } from '../../hash/index.ts';
import { protocolMerkleRoot } from '../../merkle/index.ts';
import { secondaryBundleHash } from '../bundle-hashes.ts';
import { entryIdentities, identities, isoAt, KEY_VALIDITY_SECONDS, sessionNonce } from './ids.ts';
import type { ResolvedOptions } from './options.ts';
import { unwrap } from './sign.ts';
import { TIER_SAMPLES } from './tiers.ts';
import type { ArtifactSet, BuiltBundle, JsonObject } from './types.ts';

function v1Bytes(value: unknown, what: string): Uint8Array {
  return unwrap(canonicalBytesV1(value), `V1-canonicalising ${what}`);
}

export function buildV1(o: ResolvedOptions): BuiltBundle {
  const sample = TIER_SAMPLES[o.tier];
  // V1 has no session nonce; a random tag still keeps intent ids distinct per bundle.
  const ids = identities(o.principal, o.agent, sessionNonce(o.random));
  const at = isoAt(o.now);
  const signV1 = (value: unknown, what: string): string =>
    encodeBase64(o.backend.sign('ed25519', o.principal.classical.secretKey, v1Bytes(value, what)));

  const payloads: ArtifactSet<JsonObject> = {
    responsible_principal_record: {
      dcp_version: '1.0',
      human_id: ids.humanId,
      legal_name: 'Sample Principal',
      entity_type: 'natural_person',
      jurisdiction: 'US',
      liability_mode: 'owner_responsible',
      override_rights: true,
      issued_at: at,
      expires_at: isoAt(o.now, KEY_VALIDITY_SECONDS),
      contact: 'principal@example.com',
    },
    agent_passport: {
      dcp_version: '1.0',
      agent_id: ids.agentId,
      public_key: encodeBase64(o.agent.classical.publicKey),
      principal_binding_reference: ids.humanId,
      capabilities: [...sample.capabilities],
      risk_tier: sample.riskTier,
      created_at: at,
      status: 'active',
    },
    intent: {
      dcp_version: '1.0',
      intent_id: ids.intentId,
      agent_id: ids.agentId,
      human_id: ids.humanId,
      timestamp: at,
      action_type: sample.actionType,
      target: { ...sample.target },
      data_classes: [...sample.dataClassesV1],
      estimated_impact: sample.estimatedImpact,
      requires_consent: sample.requiresConsent,
    },
    policy_decision: {
      dcp_version: '1.0',
      intent_id: ids.intentId,
      decision: 'approve',
      // V1 risk scores are floats in 0–1 (PROTOCOL §1.2); the V1 canonicaliser keeps them.
      risk_score: sample.riskScoreV1,
      reasons: [...sample.reasons],
      required_confirmation: sample.requiredConfirmation
        ? { type: sample.requiredConfirmation.type, fields: [...sample.requiredConfirmation.fields] }
        : null,
    },
  };
  o.hooks.payloads?.(payloads);
  // Inline signatures are opaque to verifiers (PROTOCOL §5.1); the principal signs both records.
  const rpr = payloads.responsible_principal_record;
  rpr['signature'] = signV1(rpr, 'responsible_principal_record');
  const passport = payloads.agent_passport;
  passport['signature'] = signV1(passport, 'agent_passport');

  // D3: V1 chain values are bare hex over the V1-canonical form.
  const intentHash = hexDigest('sha256', v1Bytes(payloads.intent, 'intent'));
  const entries: JsonObject[] = [];
  for (let i = 0; i < o.entries; i++) {
    const entry: JsonObject = {
      dcp_version: '1.0',
      audit_id: `audit-${String(i + 1).padStart(4, '0')}`,
      prev_hash: 'GENESIS',
      timestamp: at,
      ...entryIdentities(payloads.intent, ids),
      intent_hash: intentHash,
      policy_decision: 'approved',
      outcome: `step_${i + 1}_done`,
      evidence: { tool: 'sample_tool', result_ref: `result-${i + 1}` },
    };
    o.hooks.entry?.(entry, i);
    const previous = entries[i - 1];
    if (previous !== undefined)
      entry['prev_hash'] = hexDigest('sha256', v1Bytes(previous, `audit entry ${i - 1}`));
    entries.push(entry);
  }
  o.hooks.entries?.(entries);

  const bundle: JsonObject = { ...payloads, audit_entries: entries };
  o.hooks.bundle?.(bundle);
  const leaves = (bundle['audit_entries'] as unknown[]).map((e, i) =>
    hexDigest('sha256', v1Bytes(e, `entry ${i}`)),
  );
  const root = protocolMerkleRoot('sha256', leaves);
  const bundleBytes = v1Bytes(bundle, 'bundle');
  const bundleHash = prefixedHash('sha256', hexDigest('sha256', bundleBytes));
  const signature: JsonObject = {
    alg: 'ed25519',
    created_at: at,
    signer: { type: 'human', id: ids.humanId, public_key_b64: encodeBase64(o.principal.classical.publicKey) },
    bundle_hash: bundleHash,
    merkle_root: root === undefined ? null : prefixedHash('sha256', root),
    sig_b64: encodeBase64(o.backend.sign('ed25519', o.principal.classical.secretKey, bundleBytes)),
  };
  const signed_bundle: JsonObject = { bundle, signature };
  o.hooks.signedBundle?.(signed_bundle);
  const finalHash = (signed_bundle['signature'] as JsonObject | undefined)?.['bundle_hash'];
  const finalBundle = signed_bundle['bundle'] ?? bundle;
  return {
    signed_bundle,
    keys: { principal: o.principal, agent: o.agent },
    bundleHash: typeof finalHash === 'string' ? finalHash : bundleHash,
    // P62: SHA3-256 of the bytes bundle_hash covers (the bundle as finally shipped).
    bundleHashSecondary: secondaryBundleHash(v1Bytes(finalBundle, 'bundle')),
  };
}
