// The four V2 artifact payloads (RPR, passport, intent, policy decision), schema-valid and tier-exact.
// PROTOCOL §6.1, §6.4 (shared session_nonce), §6.7 (tier rule), §10.2 (fields); D2 (integers), D10, P1.
import { hashCanonicalV2 } from '../../hash/index.ts';
import type { SecurityTier } from '../types.ts';
import type { Identities } from './ids.ts';
import { keyEntries } from './keys.ts';
import { unwrap } from './sign.ts';
import { TIER_SAMPLES } from './tiers.ts';
import type { ArtifactSet, BundleKeySet, JsonObject } from './types.ts';

export interface ArtifactContext {
  readonly ids: Identities;
  readonly nonce: string;
  readonly tier: SecurityTier;
  readonly principal: BundleKeySet;
  readonly agent: BundleKeySet;
  /** Whether the PQ keys are published (classical-only bundles list Ed25519 keys only). */
  readonly withPq: boolean;
  readonly at: string;
  readonly expiresAt: string;
  /** The passport's emergency_revocation_token, when the bundle carries one (PROTOCOL §9.5). */
  readonly emergencyRevocationToken?: string | undefined;
}

export function artifactPayloadsV2(ctx: ArtifactContext): ArtifactSet<JsonObject> {
  const sample = TIER_SAMPLES[ctx.tier];
  const publish = (keys: BundleKeySet): BundleKeySet => (ctx.withPq ? keys : { classical: keys.classical });
  const responsible_principal_record: JsonObject = {
    dcp_version: '2.0',
    human_id: ctx.ids.humanId,
    session_nonce: ctx.nonce,
    legal_name: 'Sample Principal',
    entity_type: 'natural_person',
    jurisdiction: 'US',
    liability_mode: 'owner_responsible',
    override_rights: true,
    issued_at: ctx.at,
    expires_at: ctx.expiresAt,
    contact: 'principal@example.com',
    binding_keys: keyEntries(publish(ctx.principal), ctx.at, ctx.expiresAt),
  };
  const agent_passport: JsonObject = {
    dcp_version: '2.0',
    agent_id: ctx.ids.agentId,
    session_nonce: ctx.nonce,
    keys: keyEntries(publish(ctx.agent), ctx.at, ctx.expiresAt),
    principal_binding_reference: ctx.ids.humanId,
    capabilities: [...sample.capabilities],
    risk_tier: sample.riskTier,
    created_at: ctx.at,
    status: 'active',
    ...(ctx.emergencyRevocationToken === undefined
      ? {}
      : { emergency_revocation_token: ctx.emergencyRevocationToken }),
  };
  const intent: JsonObject = {
    dcp_version: '2.0',
    intent_id: ctx.ids.intentId,
    session_nonce: ctx.nonce,
    agent_id: ctx.ids.agentId,
    human_id: ctx.ids.humanId,
    timestamp: ctx.at,
    action_type: sample.actionType,
    target: { ...sample.target },
    data_classes: [...sample.dataClasses],
    estimated_impact: sample.estimatedImpact,
    requires_consent: sample.requiresConsent,
    security_tier: ctx.tier,
  };
  const policy_decision: JsonObject = {
    dcp_version: '2.0',
    intent_id: ctx.ids.intentId,
    session_nonce: ctx.nonce,
    decision: 'approve',
    risk_score: sample.riskScore,
    reasons: [...sample.reasons],
    required_confirmation: sample.requiredConfirmation
      ? { type: sample.requiredConfirmation.type, fields: [...sample.requiredConfirmation.fields] }
      : null,
    applied_policy_hash: appliedPolicyHash(ctx.tier),
    timestamp: ctx.at,
    resolved_tier: ctx.tier,
  };
  return { responsible_principal_record, agent_passport, intent, policy_decision };
}

/** Hash of the (sample) policy document that produced the decision. */
function appliedPolicyHash(tier: SecurityTier): string {
  const policy = { policy: 'sample-bundle-policy', version: 1, tier };
  return unwrap(hashCanonicalV2('sha256', policy), 'hashing the sample policy');
}
