// Modes, tiers, the intent tier rule with P1's score, tier resolution and VerifierPolicy parsing.
// PROTOCOL §6.7 (tier rule, table), SPEC.md "Verifier policy"; DECISIONS D9, D10, D11; P1 (intent score).
import { describe, expect, it } from 'vitest';
import {
  computeIntentScore,
  computeIntentTier,
  DEFAULT_VERIFIER_POLICY,
  maxTier,
  modeForTier,
  parseVerifierPolicy,
  resolveSecurityTier,
  TIER_PROFILES,
  tierFloorForMode,
  versionAccepted,
} from './index.ts';

const intent = (
  action: string,
  impact: string,
  classes: string[] = [],
  extra: Record<string, unknown> = {},
) => ({
  action_type: action,
  estimated_impact: impact,
  data_classes: classes,
  ...extra,
});

describe('tier profiles (SPEC.md Security tiers, PROTOCOL §6.7)', () => {
  it('maps every tier to its mode, checkpoint interval and cache TTL', () => {
    expect(
      Object.values(TIER_PROFILES).map((p) => [
        p.tier,
        p.mode,
        p.checkpointInterval,
        p.cacheTtlSeconds,
        p.rateLimitPerMinute,
      ]),
    ).toEqual([
      ['routine', 'classical_only', 50, 300, 1000],
      ['standard', 'hybrid_preferred', 10, 120, 500],
      ['elevated', 'hybrid_required', 1, 30, 100],
      ['maximum', 'hybrid_required', 1, 10, 50],
    ]);
    expect(modeForTier('maximum')).toBe('hybrid_required');
    expect(TIER_PROFILES.maximum.checkpointsRequired).toBe(true);
  });

  it('an operator mode floors the tier (D10); pq_only floors at elevated', () => {
    expect(
      ['classical_only', 'hybrid_preferred', 'hybrid_required', 'pq_only'].map((m) =>
        tierFloorForMode(m as never),
      ),
    ).toEqual(['routine', 'standard', 'elevated', 'elevated']);
    expect(maxTier('standard', 'routine', 'elevated')).toBe('elevated');
  });
});

describe('intent tier (PROTOCOL §6.7 rule, P1 score)', () => {
  const decision = (risk_score: unknown) => ({ decision: 'approve', risk_score });

  it.each([
    // [action, impact, classes, policy risk_score, score, tier]
    ['send_email', 'medium', ['contact_info'], 350, 350, 'standard'], // the upstream SDK fixtures (P1)
    ['send_email', 'medium', ['contact_info'], undefined, 0, 'routine'], // no score anywhere: 0
    ['browse', 'low', [], 199, 199, 'routine'],
    ['api_call', 'medium', [], 200, 200, 'standard'],
    ['execute_code', 'high', [], 499, 499, 'standard'], // impact and action no longer score
    ['send_email', 'medium', [], 500, 500, 'elevated'],
    ['browse', 'low', [], 799, 799, 'elevated'],
    ['browse', 'low', [], 800, 800, 'maximum'],
    ['api_call', 'low', ['pii'], 0, 0, 'elevated'], // a sensitive class forces elevated
    ['browse', 'low', ['children_data'], 100, 100, 'maximum'], // a maximum class forces maximum
    ['initiate_payment', 'low', [], 100, 100, 'elevated'], // initiate_payment forces elevated
    ['initiate_payment', 'high', ['credentials'], 900, 900, 'maximum'],
    ['constructor', '__proto__', ['toString'], 250, 250, 'standard'], // no prototype lookups
    ['write_file', 'high', [], 5000, 1000, 'maximum'], // clamped to 1000
    ['write_file', 'high', [], -20, 0, 'routine'], // clamped to 0
    ['api_call', 'medium', [], 349.6, 350, 'standard'], // rounded (a float fails schema/D2 elsewhere)
  ])(
    '%s / %s / %j with policy risk_score %s scores %i → %s',
    (action, impact, classes, risk, score, tier) => {
      const value = intent(action, impact, classes as string[]);
      const policy = risk === undefined ? undefined : decision(risk);
      expect(computeIntentScore(value, policy)).toBe(score);
      expect(computeIntentTier(value, policy)).toBe(tier);
    },
  );

  it("the intent's own numeric risk_score comes first, then the policy's, then 0 (P1)", () => {
    expect(computeIntentScore(intent('browse', 'low', [], { risk_score: 900 }), decision(100))).toBe(900);
    expect(computeIntentScore(intent('browse', 'low', [], { risk_score: 100 }), decision(900))).toBe(100);
    expect(computeIntentScore(intent('browse', 'low', [], { risk_score: '900' }), decision(300))).toBe(300);
    expect(computeIntentScore(intent('browse', 'low'), decision('700'))).toBe(0);
    expect(computeIntentScore(intent('browse', 'low'), decision(Number.NaN))).toBe(0);
    expect(computeIntentScore(intent('browse', 'low'))).toBe(0);
  });

  it('garbage intents and decisions score 0 and do not throw', () => {
    for (const value of [null, 42, 'x', [], { data_classes: 'pii' }, { data_classes: [1, null, 'pii'] }]) {
      expect(() => computeIntentTier(value, value)).not.toThrow();
    }
    expect(computeIntentTier({ data_classes: [1, null, 'pii'] })).toBe('elevated');
    expect(computeIntentTier(null, [{ risk_score: 900 }])).toBe('routine');
  });
});

describe('resolveSecurityTier (D10)', () => {
  const base = {
    operatorMode: 'classical_only' as const,
    policy: { ...DEFAULT_VERIFIER_POLICY, default_mode: 'classical_only' as const },
  };

  it('takes the highest candidate and reports all of them', () => {
    const r = resolveSecurityTier({
      ...base,
      intent: intent('browse', 'low', [], { security_tier: 'standard' }),
      policyDecision: { resolved_tier: 'elevated' },
      passport: { risk_tier: 'low' },
    });
    expect(r.tier).toBe('elevated');
    expect(r.mode).toBe('hybrid_required');
    expect(r.candidates).toEqual([
      { source: 'intent_computed', tier: 'routine' },
      { source: 'intent_declared', tier: 'standard' },
      { source: 'policy_decision', tier: 'elevated' },
      { source: 'operator_mode', tier: 'routine' },
      { source: 'policy_risk_override', tier: 'routine' },
    ]);
  });

  it('never lowers: a declared routine tier cannot undo a computed elevated one', () => {
    const r = resolveSecurityTier({
      ...base,
      intent: intent('send_email', 'medium', [], { security_tier: 'routine' }),
      policyDecision: { risk_score: 650 },
    });
    expect(r.tier).toBe('elevated');
    expect(r.candidates[0]).toEqual({ source: 'intent_computed', tier: 'elevated' });
  });

  it("the policy decision's risk_score feeds the computed tier (P1): the upstream fixtures resolve standard", () => {
    const r = resolveSecurityTier({
      operatorMode: 'hybrid_preferred',
      policy: DEFAULT_VERIFIER_POLICY,
      intent: intent('send_email', 'medium', ['contact_info'], { security_tier: 'standard' }),
      policyDecision: { risk_score: 350, resolved_tier: 'standard' },
      passport: { risk_tier: 'medium' },
    });
    expect(r).toMatchObject({ tier: 'standard', mode: 'hybrid_preferred' });
    expect(r.candidates.map((c) => c.tier)).toEqual([
      'standard',
      'standard',
      'standard',
      'standard',
      'standard',
    ]);
    // Under hybrid_required the operator's floor lifts the same bundle to elevated.
    expect(
      resolveSecurityTier({
        operatorMode: 'hybrid_required',
        policy: DEFAULT_VERIFIER_POLICY,
        intent: intent('send_email', 'medium', ['contact_info'], { security_tier: 'standard' }),
        policyDecision: { risk_score: 350, resolved_tier: 'standard' },
        passport: { risk_tier: 'medium' },
      }).tier,
    ).toBe('elevated');
  });

  it("the policy's override for the passport's risk tier, else its default_mode, is a floor", () => {
    const policy = {
      ...base.policy,
      risk_overrides: { low: 'classical_only', medium: 'hybrid_preferred', high: 'hybrid_required' } as const,
    };
    expect(resolveSecurityTier({ ...base, policy, passport: { risk_tier: 'high' } }).tier).toBe('elevated');
    expect(
      resolveSecurityTier({ ...base, policy: { ...policy, default_mode: 'hybrid_preferred' }, passport: {} })
        .tier,
    ).toBe('standard');
  });

  it('pq_only from the operator or the policy replaces the tier mode (D9)', () => {
    expect(resolveSecurityTier({ ...base, operatorMode: 'pq_only' }).mode).toBe('pq_only');
    const policy = {
      ...base.policy,
      risk_overrides: { low: 'pq_only', medium: 'pq_only', high: 'pq_only' } as const,
    };
    const r = resolveSecurityTier({
      ...base,
      policy,
      passport: { risk_tier: 'medium' },
      intent: intent('execute_code', 'high'),
      policyDecision: { risk_score: 850 },
    });
    expect(r).toMatchObject({ tier: 'maximum', mode: 'pq_only' });
  });
});

describe('parseVerifierPolicy (SPEC.md shape, verifier_policy schema)', () => {
  it('completes a minimal policy with the defaults', () => {
    const r = parseVerifierPolicy({ default_mode: 'hybrid_required' });
    expect(r.ok && r.value.policy).toEqual({ ...DEFAULT_VERIFIER_POLICY, default_mode: 'hybrid_required' });
  });

  it('keeps the given risk overrides key by key and the algorithm lists', () => {
    const r = parseVerifierPolicy({
      default_mode: 'classical_only',
      risk_overrides: { high: 'pq_only' },
      min_accepted_version: '2.0',
      accepted_algorithms: { signing: ['ed25519'], hash: ['sha256'] },
    });
    expect(r.ok && r.value.policy).toEqual({
      default_mode: 'classical_only',
      risk_overrides: { low: 'classical_only', medium: 'hybrid_preferred', high: 'pq_only' },
      min_accepted_version: '2.0',
      accepted_algorithms: { signing: ['ed25519'], hash: ['sha256'] },
    });
    expect(r.ok && versionAccepted(r.value.policy, '1.0')).toBe(false);
    expect(r.ok && versionAccepted(r.value.policy, '2.0')).toBe(true);
  });

  it('reads the upstream members (PROTOCOL §6.8) as settings', () => {
    const r = parseVerifierPolicy({
      default_mode: 'hybrid_preferred',
      accepted_classical_algs: ['ed25519'],
      accepted_pq_algs: ['ml-dsa-65', 'slh-dsa-192f'],
      require_session_binding: false,
      require_composite_binding: false,
      max_key_age_days: 30,
      allow_v1_bundles: false,
      advisory_rejected_algs: ['slh-dsa-192f'],
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.policy.accepted_algorithms.signing).toEqual(['ed25519', 'ml-dsa-65', 'slh-dsa-192f']);
    expect(r.value).toMatchObject({
      requireSessionBinding: false,
      requireCompositeBinding: false,
      maxKeyAgeDays: 30,
      allowV1Bundles: false,
      advisoryRejectedAlgs: ['slh-dsa-192f'],
    });
  });

  it.each([
    [null, 'expected a JSON object'],
    [{}, 'default_mode is required'],
    [
      { default_mode: 'hybrid_preferred', min_accepted_version: 'v2' },
      'min_accepted_version must be a version',
    ],
    [{ default_mode: 'hybrid_preferred', min_accepted_version: '2.1' }, 'above every supported version'],
    [
      { default_mode: 'hybrid_preferred', accepted_algorithms: { hash: ['md5'] } },
      'accepted_algorithms.hash[0] must be one of',
    ],
    [
      { default_mode: 'hybrid_preferred', accepted_algorithms: { signing: [] } },
      'accepted_algorithms.signing must not be empty',
    ],
    [{ default_mode: 'hybrid_preferred', surprise: 1 }, "must NOT have additional property 'surprise'"],
    [{ default_mode: 'hybrid_preferred', max_key_age_days: 0 }, 'max_key_age_days must be an integer >= 1'],
  ])('refuses %j', (value, message) => {
    const r = parseVerifierPolicy(value);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe('POLICY_VIOLATION');
      expect(r.error.message).toContain(message);
    }
  });
});
