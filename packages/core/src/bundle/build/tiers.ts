// Per-tier sample content: the intent and policy the builder writes so that a bundle resolves to
// exactly the requested tier. PROTOCOL §6.4 (session lengths), §6.7 (tier rule); DECISIONS D10.
import type { SecurityTier } from '../types.ts';

export interface TierSample {
  /** Default session lifetime in seconds (PROTOCOL §6.4). */
  readonly sessionTtlSeconds: number;
  readonly actionType: string;
  readonly target: Readonly<Record<string, string | null>>;
  readonly estimatedImpact: 'low' | 'medium' | 'high';
  /** V2 data classes: chosen so the §6.7 score and class rules agree on this tier alone. */
  readonly dataClasses: readonly string[];
  /** V1 requires at least one data class (PROTOCOL §10.1). */
  readonly dataClassesV1: readonly string[];
  readonly requiresConsent: boolean;
  readonly capabilities: readonly string[];
  /** Passport risk_tier whose default risk override matches the tier's mode (D10). */
  readonly riskTier: 'low' | 'medium' | 'high';
  /** V2 policy risk score, integer 0–1000 (D2). */
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
 * initiate_payment; standard if score ≥ 200; else routine. Score = round((IMPACT + ACTION)/2 +
 * 150 × #sensitive classes). The choices below give the same tier whether or not a verifier counts
 * the chosen classes as sensitive:
 *   routine  browse(100) + low(200)            → 150, no classes
 *   standard api_call(300) + medium(500)       → 400, no classes
 *   elevated send_email(500) + medium(500)     → 500 (650 if contact_info counted), below 800
 *   maximum  initiate_payment(900) + high(900) → 900 and credentials
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
