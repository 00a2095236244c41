// The security tier an intent calls for, from its risk score, data classes and action.
// PROTOCOL §6.7 tier rule with the SDKs' score (docs/project-decisions.md P1); DECISIONS D10 (a candidate).
import type { SecurityTier } from '../bundle/types.ts';

/** Data classes that force at least `elevated` (PROTOCOL §6.7). */
export const SENSITIVE_DATA_CLASSES: ReadonlySet<string> = new Set([
  'pii',
  'credentials',
  'financial_data',
  'health_data',
  'children_data',
]);

/** Data classes that force `maximum`. */
export const MAXIMUM_DATA_CLASSES: ReadonlySet<string> = new Set(['credentials', 'children_data']);

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, key)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

function dataClasses(intent: unknown): string[] {
  const raw = field(intent, 'data_classes');
  return Array.isArray(raw) ? raw.filter((c): c is string => typeof c === 'string') : [];
}

/** A numeric risk_score as a score 0–1000 (rounded, clamped); undefined when absent or not a number. */
function riskScore(value: unknown): number | undefined {
  const raw = field(value, 'risk_score');
  return typeof raw === 'number' && Number.isFinite(raw)
    ? Math.min(1000, Math.max(0, Math.round(raw)))
    : undefined;
}

/**
 * P1: the score the SDKs use, not the gateway's impact/action formula. The intent's own numeric
 * `risk_score` when present (V2 intent schemas forbid it, so a schema-valid bundle never has one),
 * else the policy decision payload's `risk_score` (V2: integer 0–1000), else 0. The policy
 * decision's `resolved_tier` stays a separate D10 candidate, so this score never lowers it.
 */
export function computeIntentScore(intent: unknown, policyDecision?: unknown): number {
  return riskScore(intent) ?? riskScore(policyDecision) ?? 0;
}

/**
 * PROTOCOL §6.7: `maximum` if score ≥ 800 or a class in MAXIMUM_DATA_CLASSES; else `elevated` if
 * score ≥ 500, a class in SENSITIVE_DATA_CLASSES or action `initiate_payment`; else `standard` if
 * score ≥ 200; else `routine`. The score is computeIntentScore's (P1).
 */
export function computeIntentTier(intent: unknown, policyDecision?: unknown): SecurityTier {
  const score = computeIntentScore(intent, policyDecision);
  const classes = dataClasses(intent);
  if (score >= 800 || classes.some((c) => MAXIMUM_DATA_CLASSES.has(c))) return 'maximum';
  if (
    score >= 500 ||
    classes.some((c) => SENSITIVE_DATA_CLASSES.has(c)) ||
    field(intent, 'action_type') === 'initiate_payment'
  ) {
    return 'elevated';
  }
  if (score >= 200) return 'standard';
  return 'routine';
}
