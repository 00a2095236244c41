// Per-tier sample content: the intent and policy the builder writes so that a bundle resolves to
// exactly the requested tier. PROTOCOL §6.4 (session lengths), §6.7 (tier rule); DECISIONS D10; P1.
import type { SecurityTier } from '../types.ts';

export interface TierSample {
  /** Default session lifetime in seconds (PROTOCOL §6.4). */
  readonly sessionTtlSeconds: number;
  readonly actionType: string;
  readonly target: Readonly<Record<string, string | null>>;
  readonly estimatedImpact: 'low' | 'medium' | 'high';
  /** V2 data classes: chosen so the §6.7 class rules never reach above this tier. */
  readonly dataClasses: readonly string[];
  /** V1 requires at least one data class (PROTOCOL §10.1). */
  readonly dataClassesV1: readonly string[];
  readonly requiresConsent: boolean;
  readonly capabilities: readonly string[];
  /** Passport risk_tier whose default risk override matches the tier's mode (D10). */
  readonly riskTier: 'low' | 'medium' | 'high';
  /**
   * V2 policy risk score, integer 0–1000 (D2); it is the intent's tier score (P1), so it stays in the
   * tier's band: routine < 200 ≤ standard < 500 ≤ elevated < 800 ≤ maximum.
   */
  readonly riskScore: number;
  /** V1 policy risk score, a float 0–1 as upstream writes it (PROTOCOL §1.2). */
  readonly riskScoreV1: number;
  readonly reasons: readonly string[];
  readonly requiredConfirmation: null | {
    readonly type: 'human_approve';
    readonly fields: readonly string[];
  };
}

/*
 * PROTOCOL §6.7: maximum if score ≥ 800 or a class in {credentials, children_data}; elevated if
 * score ≥ 500, a class in {pii, financial_data, health_data, credentials, children_data} or action
 * initiate_payment; standard if score ≥ 200; else routine. The score is the policy decision's
 * risk_score (P1: the intent carries none, its V2 schema forbids one), so each riskScore below lies
 * in its tier's band and the classes and action never reach a higher tier:
 *   routine  100, browse, no classes
 *   standard 350, api_call, no classes
 *   elevated 650, send_email, contact_info (not sensitive)
 *   maximum  900, initiate_payment, financial_data and credentials
 * The same choices give the same tiers under the upstream gateway's impact/action formula
 * (150, 400, 500–650, 900 + credentials), so gateway-style verifiers agree.
 */
export const TIER_SAMPLES: Readonly<Record<SecurityTier, TierSample>> = {
  routine: {
    sessionTtlSeconds: 86_400,
    actionType: 'browse',
    target: { channel: 'web', url: 'https://docs.example.com/guide', domain: 'docs.example.com' },
    estimatedImpact: 'low',
    dataClasses: [],
    dataClassesV1: ['none'],
    requiresConsent: false,
    capabilities: ['browse'],
    riskTier: 'low',
    riskScore: 100,
    riskScoreV1: 0.1,
    reasons: ['read-only browsing of public pages'],
    requiredConfirmation: null,
  },
  standard: {
    sessionTtlSeconds: 14_400,
    actionType: 'api_call',
    target: { channel: 'api', url: 'https://api.example.com/v1/orders', domain: 'api.example.com' },
    estimatedImpact: 'medium',
    dataClasses: [],
    dataClassesV1: ['none'],
    requiresConsent: false,
    capabilities: ['api_call'],
    riskTier: 'medium',
    riskScore: 350,
    riskScoreV1: 0.35,
    reasons: ['medium impact API call', 'no sensitive data'],
    requiredConfirmation: null,
  },
  elevated: {
    sessionTtlSeconds: 3_600,
    actionType: 'send_email',
    target: { channel: 'email', to: 'bob@example.com', domain: 'example.com' },
    estimatedImpact: 'medium',
    dataClasses: ['contact_info'],
    dataClassesV1: ['contact_info'],
    requiresConsent: false,
    capabilities: ['email'],
    riskTier: 'high',
    riskScore: 650,
    riskScoreV1: 0.65,
    reasons: ['outbound email to a third party'],
    requiredConfirmation: null,
  },
  maximum: {
    sessionTtlSeconds: 900,
    actionType: 'initiate_payment',
    target: { channel: 'payments', to: 'acct-example-0042', domain: 'bank.example.com' },
    estimatedImpact: 'high',
    dataClasses: ['financial_data', 'credentials'],
    dataClassesV1: ['financial_data', 'credentials'],
    requiresConsent: true,
    capabilities: ['payments'],
    riskTier: 'high',
    riskScore: 900,
    riskScoreV1: 0.9,
    reasons: ['payment using stored credentials', 'human approval recorded'],
    requiredConfirmation: { type: 'human_approve', fields: ['amount', 'recipient'] },
  },
};
