// Security tiers: ordering, the per-tier profile (mode, checkpoint interval, cache TTL, rate) and the
// mode ⇄ tier maps. SPEC.md "Security tiers"; PROTOCOL §6.7 table (b); DECISIONS D10 (never lower a tier).
import type { SecurityTier, VerificationMode } from '../bundle/types.ts';

export const SECURITY_TIERS: readonly SecurityTier[] = Object.freeze([
  'routine',
  'standard',
  'elevated',
  'maximum',
]);

export interface TierProfile {
  readonly tier: SecurityTier;
  /** The verification mode the tier implies (D10: the mode is the resolved tier's mode). */
  readonly mode: VerificationMode;
  /** Events per PQ checkpoint a producer should use (SPEC.md Limits: 50, 10, 1, 1). */
  readonly checkpointInterval: number;
  /** TTL of a cached verdict for this tier, seconds (PROTOCOL §8.3). */
  readonly cacheTtlSeconds: number;
  /** SDK adaptive per-agent rate limit, requests per minute (SPEC.md Limits). */
  readonly rateLimitPerMinute: number;
  /** `maximum` adds mandatory PQ checkpoints covering every entry (D6). */
  readonly checkpointsRequired: boolean;
}

export const TIER_PROFILES: Readonly<Record<SecurityTier, TierProfile>> = Object.freeze({
  routine: Object.freeze({
    tier: 'routine',
    mode: 'classical_only',
    checkpointInterval: 50,
    cacheTtlSeconds: 300,
    rateLimitPerMinute: 1000,
    checkpointsRequired: false,
  }),
  standard: Object.freeze({
    tier: 'standard',
    mode: 'hybrid_preferred',
    checkpointInterval: 10,
    cacheTtlSeconds: 120,
    rateLimitPerMinute: 500,
    checkpointsRequired: false,
  }),
  elevated: Object.freeze({
    tier: 'elevated',
    mode: 'hybrid_required',
    checkpointInterval: 1,
    cacheTtlSeconds: 30,
    rateLimitPerMinute: 100,
    checkpointsRequired: false,
  }),
  maximum: Object.freeze({
    tier: 'maximum',
    mode: 'hybrid_required',
    checkpointInterval: 1,
    cacheTtlSeconds: 10,
    rateLimitPerMinute: 50,
    checkpointsRequired: true,
  }),
}) as Readonly<Record<SecurityTier, TierProfile>>;

export function isSecurityTier(value: unknown): value is SecurityTier {
  return typeof value === 'string' && (SECURITY_TIERS as readonly string[]).includes(value);
}

/** Rank: routine 0 < standard 1 < elevated 2 < maximum 3. */
export function tierRank(tier: SecurityTier): number {
  return SECURITY_TIERS.indexOf(tier);
}

/** The highest of the given tiers (D10: "never downgrade" = take the maximum rank). */
export function maxTier(first: SecurityTier, ...rest: readonly SecurityTier[]): SecurityTier {
  let best = first;
  for (const t of rest) if (tierRank(t) > tierRank(best)) best = t;
  return best;
}

export function modeForTier(tier: SecurityTier): VerificationMode {
  return TIER_PROFILES[tier].mode;
}

/**
 * The lowest tier an operator mode implies (D10): classical_only → routine, hybrid_preferred →
 * standard, hybrid_required → elevated. pq_only requires a PQ signature, so it floors at elevated;
 * it also replaces the tier's mode (see resolveSecurityTier).
 */
export function tierFloorForMode(mode: VerificationMode): SecurityTier {
  switch (mode) {
    case 'classical_only':
      return 'routine';
    case 'hybrid_preferred':
      return 'standard';
    case 'hybrid_required':
    case 'pq_only':
      return 'elevated';
  }
}
