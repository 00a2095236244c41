// Resolves a bundle's security tier and verification mode from every candidate, never lowering.
// DECISIONS D10 (the five candidates, max rank wins, mode = tier's mode); D9 (pq_only); PROTOCOL §6.7; P1.
import type { SecurityTier, VerificationMode, VerifierPolicy } from '../bundle/types.ts';
import { computeIntentTier } from './intent-tier.ts';
import { isSecurityTier, maxTier, modeForTier, tierFloorForMode } from './tiers.ts';

export type TierSource =
  | 'intent_computed'
  | 'intent_declared'
  | 'policy_decision'
  | 'operator_mode'
  | 'policy_risk_override'
  | 'policy_default_mode';

export interface TierCandidate {
  readonly source: TierSource;
  readonly tier: SecurityTier;
}

export interface TierInputs {
  /** The intent payload (V2 `bundle.intent.payload`); omitted when unavailable. */
  readonly intent?: unknown;
  /**
   * The policy decision payload: its `resolved_tier` is a candidate, and its `risk_score` is the
   * intent's score when the intent has none (P1).
   */
  readonly policyDecision?: unknown;
  /** The agent passport payload; its `risk_tier` selects the policy's risk override. */
  readonly passport?: unknown;
  /** VERIFIER_MODE, the operator's floor. */
  readonly operatorMode: VerificationMode;
  readonly policy: VerifierPolicy;
}

export interface TierResolution {
  readonly tier: SecurityTier;
  readonly mode: VerificationMode;
  /** Every candidate considered, for diagnostics and warnings. */
  readonly candidates: readonly TierCandidate[];
  /** The mode the policy selects for the passport's risk tier (or its default_mode). */
  readonly policyMode: VerificationMode;
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, key)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/** The policy's mode for a passport: `risk_overrides[risk_tier]`, else `default_mode` (PROTOCOL §6.7a). */
export function policyModeForPassport(policy: VerifierPolicy, passport: unknown): VerificationMode {
  const risk = field(passport, 'risk_tier');
  if (risk === 'low' || risk === 'medium' || risk === 'high') return policy.risk_overrides[risk];
  return policy.default_mode;
}

/**
 * D10: resolved tier = the highest of the intent's computed tier (PROTOCOL §6.7 rule with P1's score),
 * the intent's declared `security_tier`, the policy decision's `resolved_tier`, the operator mode's
 * floor and the policy's mode for the passport's risk tier. The mode is that tier's mode, except that an operator or policy
 * choice of `pq_only` (D9) replaces it: that choice is about which half is trusted, not about level.
 */
export function resolveSecurityTier(inputs: TierInputs): TierResolution {
  const candidates: TierCandidate[] = [];
  if (inputs.intent !== undefined) {
    candidates.push({
      source: 'intent_computed',
      tier: computeIntentTier(inputs.intent, inputs.policyDecision),
    });
    const declared = field(inputs.intent, 'security_tier');
    if (isSecurityTier(declared)) candidates.push({ source: 'intent_declared', tier: declared });
  }
  const decided = field(inputs.policyDecision, 'resolved_tier');
  if (isSecurityTier(decided)) candidates.push({ source: 'policy_decision', tier: decided });
  candidates.push({ source: 'operator_mode', tier: tierFloorForMode(inputs.operatorMode) });
  const risk = field(inputs.passport, 'risk_tier');
  const policyMode = policyModeForPassport(inputs.policy, inputs.passport);
  candidates.push({
    source:
      risk === 'low' || risk === 'medium' || risk === 'high' ? 'policy_risk_override' : 'policy_default_mode',
    tier: tierFloorForMode(policyMode),
  });
  const tier = maxTier(candidates[0]!.tier, ...candidates.slice(1).map((c) => c.tier));
  const mode = inputs.operatorMode === 'pq_only' || policyMode === 'pq_only' ? 'pq_only' : modeForTier(tier);
  return { tier, mode, candidates, policyMode };
}
