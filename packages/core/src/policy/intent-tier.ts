// The security tier an intent calls for, from its action, impact and data classes.
// PROTOCOL §6.7 tier rule with the gateway's score formula; DECISIONS D10 (one of the tier candidates).
import type { SecurityTier } from '../bundle/types.ts';

/** Gateway impact base (unknown impact: 500). */
export const IMPACT_SCORES: Readonly<Record<string, number>> = Object.freeze({
  low: 200,
  medium: 500,
  high: 900,
});

/** Gateway action weights (unknown action: 300). */
export const ACTION_SCORES: Readonly<Record<string, number>> = Object.freeze({
  browse: 100,
  api_call: 300,
  send_email: 500,
  create_calendar_event: 200,
  initiate_payment: 900,
  update_crm: 400,
  write_file: 400,
  execute_code: 700,
});

/** Data classes that add 150 to the score and force at least `elevated`. */
export const SENSITIVE_DATA_CLASSES: ReadonlySet<string> = new Set([
  'pii',
  'credentials',
  'financial_data',
  'health_data',
  'children_data',
]);

/** Data classes that force `maximum`. */
export const MAXIMUM_DATA_CLASSES: ReadonlySet<string> = new Set(['credentials', 'children_data']);

const UNKNOWN_IMPACT = 500;
const UNKNOWN_ACTION = 300;

function ownNumber(table: Readonly<Record<string, number>>, key: unknown, fallback: number): number {
  // Own-property lookup only: `constructor` or `__proto__` as an action type must not hit Object.prototype.
  return typeof key === 'string' && Object.hasOwn(table, key) ? table[key]! : fallback;
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, key)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

function dataClasses(intent: unknown): string[] {
  const raw = field(intent, 'data_classes');
  return Array.isArray(raw) ? raw.filter((c): c is string => typeof c === 'string') : [];
}

/**
 * The gateway score `min(1000, round((IMPACT + ACTION) / 2 + 150 × #sensitive classes))`.
 * A numeric `risk_score` on the intent (V2 schemas forbid it; some producers add it) can only raise
 * the score: the larger of the two counts, so a declared score never lowers the tier (D10).
 */
export function computeIntentScore(intent: unknown): number {
  const impact = ownNumber(IMPACT_SCORES, field(intent, 'estimated_impact'), UNKNOWN_IMPACT);
  const action = ownNumber(ACTION_SCORES, field(intent, 'action_type'), UNKNOWN_ACTION);
  const sensitive = dataClasses(intent).filter((c) => SENSITIVE_DATA_CLASSES.has(c)).length;
  const formula = Math.min(1000, Math.round((impact + action) / 2 + 150 * sensitive));
  const declared = field(intent, 'risk_score');
  if (typeof declared === 'number' && Number.isFinite(declared)) {
    return Math.max(formula, Math.min(1000, Math.max(0, Math.round(declared))));
  }
  return formula;
}

/** The tier for a score and the intent's data classes / action (PROTOCOL §6.7 rule). */
export function computeIntentTier(intent: unknown): SecurityTier {
  const score = computeIntentScore(intent);
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
