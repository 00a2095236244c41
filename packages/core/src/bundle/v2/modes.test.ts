// Verdicts per verification mode where they differ, and tier resolution at bundle level.
// DECISIONS D9 (mode rules), D10 (tier candidates), D6 (maximum), P1 (score); SPEC.md "Verification modes".
import { describe, expect, it } from 'vitest';
import { compositeSign, domainSeparatedMessage } from '../../crypto/index.ts';
import { encodeBase64 } from '../../encoding/index.ts';
import { contextString, PROFILES } from '../../profile.ts';
import {
  type BuildOptions,
  type BundleKeySet,
  buildSignedBundle,
  generateBundleKeys,
} from '../build/index.ts';
import type { ArtifactSet, JsonObject } from '../build/types.ts';
import { backend, codes, FIXED_NOW, flipB64, type J, jcs, makeVerifier, o } from '../test-support.ts';
import type { VerificationMode } from '../types.ts';

const KEYS: { principal: BundleKeySet; agent: BundleKeySet } = {
  principal: generateBundleKeys(backend),
  agent: generateBundleKeys(backend),
};
const CLASSICAL_KEYS: { principal: BundleKeySet; agent: BundleKeySet } = {
  principal: { classical: KEYS.principal.classical },
  agent: { classical: KEYS.agent.classical },
};

const build = (options: BuildOptions = {}): J =>
  buildSignedBundle({ now: FIXED_NOW, keys: KEYS, backend, tier: 'routine', ...options }).signed_bundle as J;
const bundleSig = (s: J) => o(o(s['signature'])['composite_sig']);

function tamperPq(s: J): J {
  const pq = o(bundleSig(s)['pq']);
  pq['sig_b64'] = flipB64(pq['sig_b64']);
  return s;
}

/** Classical half over other bytes; PQ half valid over DSM ‖ that classical half. */
function breakClassicalOnly(s: J): J {
  const keys = KEYS.principal;
  const context = contextString(PROFILES.proto, 'Bundle');
  const wrong = compositeSign(
    backend,
    { classical: { alg: 'ed25519', kid: keys.classical.kid, secretKey: keys.classical.secretKey } },
    context,
    jcs({ other: true }),
  );
  const dsm = domainSeparatedMessage(context, jcs(o(s['bundle'])['manifest']));
  const pq = backend.sign(
    'ml-dsa-65',
    keys.pq!.secretKey,
    Buffer.concat([dsm, Buffer.from(wrong.classical.sig_b64, 'base64')]),
  );
  o(s['signature'])['composite_sig'] = {
    classical: { ...wrong.classical },
    pq: { alg: 'ml-dsa-65', kid: keys.pq!.kid, sig_b64: encodeBase64(pq) },
    binding: 'pq_over_classical',
  };
  return s;
}

function strip(s: J): J {
  bundleSig(s)['pq'] = null;
  return s;
}

const MODES: readonly VerificationMode[] = [
  'classical_only',
  'hybrid_preferred',
  'hybrid_required',
  'pq_only',
];

// Routine-tier bundles, so VERIFIER_MODE decides the mode (D10: the operator's floor).
const MATRIX: ReadonlyArray<{
  readonly bundle: string;
  readonly make: () => J;
  readonly expect: Readonly<Record<VerificationMode, readonly string[] | 'verified'>>;
}> = [
  {
    bundle: 'hybrid',
    make: () => build(),
    expect: {
      classical_only: 'verified',
      hybrid_preferred: 'verified',
      hybrid_required: 'verified',
      pq_only: 'verified',
    },
  },
  {
    bundle: 'hybrid with a tampered PQ half',
    make: () => tamperPq(build()),
    // classical_only does not evaluate PQ at all (D9); every other mode needs a present PQ half to verify.
    expect: {
      classical_only: 'verified',
      hybrid_preferred: ['PROTO-E101'],
      hybrid_required: ['PROTO-E101'],
      pq_only: ['PROTO-E101'],
    },
  },
  {
    bundle: 'hybrid whose classical half alone is wrong',
    make: () => breakClassicalOnly(build()),
    // pq_only ignores the classical half (D9).
    expect: {
      classical_only: ['PROTO-E100'],
      hybrid_preferred: ['PROTO-E100'],
      hybrid_required: ['PROTO-E100'],
      pq_only: 'verified',
    },
  },
  {
    bundle: 'classical-only (binding classical_only, pq null)',
    make: () =>
      buildSignedBundle({
        now: FIXED_NOW,
        keys: CLASSICAL_KEYS,
        backend,
        tier: 'routine',
        classicalOnly: true,
      }).signed_bundle as J,
    // The bundle signature and the four artifact signatures each lack the PQ half.
    expect: {
      classical_only: 'verified',
      hybrid_preferred: 'verified',
      hybrid_required: Array(5).fill(['PROTO-E102', 'PROTO-E103']).flat(),
      pq_only: Array(5).fill(['PROTO-E102', 'PROTO-E103']).flat(),
    },
  },
  {
    bundle: 'stripped (pq_over_classical with pq null)',
    make: () => strip(build()),
    // Stripping always fails (D9), even where PQ is not otherwise evaluated.
    expect: {
      classical_only: ['PROTO-E102'],
      hybrid_preferred: ['PROTO-E102'],
      hybrid_required: ['PROTO-E102', 'PROTO-E103'],
      pq_only: ['PROTO-E102', 'PROTO-E103'],
    },
  },
];

describe('verdicts by VERIFIER_MODE (D9)', () => {
  it.each(MATRIX.flatMap((row) => MODES.map((mode) => [row.bundle, mode, row] as const)))(
    '%s under %s',
    (_name, mode, row) => {
      const response = makeVerifier({
        mode,
        policy: {
          default_mode: 'classical_only',
          risk_overrides: { low: 'classical_only', medium: 'classical_only', high: 'classical_only' },
        },
      }).verify({ signed_bundle: row.make() });
      const expected = row.expect[mode];
      if (expected === 'verified') {
        expect(response.error_details).toBeUndefined();
        expect(response.verified).toBe(true);
      } else {
        expect(response.verified).toBe(false);
        expect(codes(response)).toEqual(expected);
      }
    },
  );

  it('check values name what was evaluated: skipped, absent, pass', () => {
    const lenient = {
      default_mode: 'classical_only',
      risk_overrides: { low: 'classical_only', medium: 'classical_only', high: 'classical_only' },
    };
    const hybrid = build();
    expect(
      makeVerifier({ mode: 'classical_only', policy: lenient }).verify({ signed_bundle: hybrid }).checks,
    ).toMatchObject({
      classical_sig: 'pass',
      pq_sig: 'skipped',
    });
    expect(
      makeVerifier({ mode: 'pq_only', policy: lenient }).verify({ signed_bundle: hybrid }).checks,
    ).toMatchObject({
      classical_sig: 'skipped',
      pq_sig: 'pass',
    });
    const classical = buildSignedBundle({
      now: FIXED_NOW,
      keys: CLASSICAL_KEYS,
      backend,
      tier: 'routine',
      classicalOnly: true,
    });
    const preferred = makeVerifier({ mode: 'hybrid_preferred', policy: lenient }).verify({
      signed_bundle: classical.signed_bundle,
    });
    expect(preferred.checks).toMatchObject({
      classical_sig: 'pass',
      pq_sig: 'absent',
      artifact_sigs: 'pass',
    });
    // No ML-DSA key in the passport: no downgrade warning, only the absence.
    expect(preferred.warnings?.filter((w) => w.includes('downgrade'))).toEqual([]);
    expect(preferred.warnings?.some((w) => w.startsWith('Bundle signature: PQ signature absent'))).toBe(true);
  });

  it('hybrid_preferred warns of a downgrade when the passport holds an ML-DSA key but the bundle is classical-only', () => {
    const signed = build();
    // Re-sign the manifest classical-only with the same keys (a downgrade: PQ removed, binding rewritten).
    const keys = KEYS.principal;
    o(signed['signature'])['composite_sig'] = JSON.parse(
      JSON.stringify(
        compositeSign(
          backend,
          { classical: { alg: 'ed25519', kid: keys.classical.kid, secretKey: keys.classical.secretKey } },
          contextString(PROFILES.proto, 'Bundle'),
          jcs(o(signed['bundle'])['manifest']),
        ),
      ),
    );
    const response = makeVerifier({ mode: 'hybrid_preferred' }).verify({ signed_bundle: signed });
    expect(response.verified).toBe(true);
    expect(response.warnings).toContain(
      'Bundle signature: classical-only signature although the passport holds an ML-DSA-65 key (possible downgrade)',
    );
  });

  it('requireCompositeBinding=false drops the E102 of a classical_only binding under hybrid_required (E103 stays)', () => {
    const classical = buildSignedBundle({
      now: FIXED_NOW,
      keys: CLASSICAL_KEYS,
      backend,
      tier: 'routine',
      classicalOnly: true,
    });
    const response = makeVerifier({ mode: 'hybrid_required', requireCompositeBinding: false }).verify({
      signed_bundle: classical.signed_bundle,
    });
    expect(codes(response).filter((c) => c === 'PROTO-E103')).not.toEqual([]);
    expect(codes(response).filter((c) => c === 'PROTO-E102')).toEqual([]);
  });
});

describe('tier resolution on bundles (D10)', () => {
  it('VERIFIER_MODE is a floor: a routine bundle is verified at standard under the default hybrid_preferred', () => {
    const response = makeVerifier().verify({ signed_bundle: build() });
    expect(response.resolved_tier).toBe('standard');
    // With classical_only and the default policy (low risk → classical_only) nothing raises it.
    expect(makeVerifier({ mode: 'classical_only' }).verify({ signed_bundle: build() }).resolved_tier).toBe(
      'routine',
    );
  });

  it("the policy's risk override for the passport's risk tier is a floor too", () => {
    const lenient = {
      default_mode: 'classical_only',
      risk_overrides: { low: 'classical_only', medium: 'classical_only', high: 'classical_only' },
    };
    expect(
      makeVerifier({ mode: 'classical_only', policy: lenient }).verify({ signed_bundle: build() })
        .resolved_tier,
    ).toBe('routine');
    const strict = { ...lenient, risk_overrides: { ...lenient.risk_overrides, low: 'hybrid_required' } };
    expect(
      makeVerifier({ mode: 'classical_only', policy: strict }).verify({ signed_bundle: build() })
        .resolved_tier,
    ).toBe('elevated');
  });

  it('a declared intent tier or a policy decision tier above the computed one raises the tier', () => {
    const lenient = {
      default_mode: 'classical_only',
      risk_overrides: { low: 'classical_only', medium: 'classical_only', high: 'classical_only' },
    };
    const verifier = makeVerifier({ mode: 'classical_only', policy: lenient });
    const declared = build({
      hooks: {
        payloads: (p) => {
          p.intent['security_tier'] = 'maximum';
        },
      },
    });
    const response = verifier.verify({ signed_bundle: declared });
    // maximum requires checkpoints covering every entry; the routine-interval bundle has one checkpoint of 3.
    expect(response.resolved_tier).toBe('maximum');
    expect(response.verified).toBe(false);
    expect(response.checks.checkpoints).toBe('fail');
    const decided = build({
      hooks: {
        payloads: (p) => {
          p.policy_decision['resolved_tier'] = 'elevated';
        },
      },
    });
    expect(verifier.verify({ signed_bundle: decided }).resolved_tier).toBe('elevated');
  });

  it("the policy decision's risk_score is the intent's score (P1); impact and action do not score", () => {
    const lenient = {
      default_mode: 'classical_only',
      risk_overrides: { low: 'classical_only', medium: 'classical_only', high: 'classical_only' },
    };
    const verifier = makeVerifier({ mode: 'classical_only', policy: lenient });
    const tierWith = (edit: (p: ArtifactSet<JsonObject>) => void) =>
      verifier.verify({ signed_bundle: build({ hooks: { payloads: edit } }) }).resolved_tier;
    // The routine sample: policy risk_score 100, browse/low.
    expect(tierWith(() => {})).toBe('routine');
    // execute_code/high scored 800 (maximum) under the gateway formula; without a score it stays routine.
    expect(
      tierWith((p) => {
        p.intent['action_type'] = 'execute_code';
        p.intent['estimated_impact'] = 'high';
      }),
    ).toBe('routine');
    // The policy's score alone moves the computed tier, resolved_tier still saying routine.
    expect(tierWith((p) => (p.policy_decision['risk_score'] = 200))).toBe('standard');
    expect(tierWith((p) => (p.policy_decision['risk_score'] = 650))).toBe('elevated');
    expect(tierWith((p) => (p.policy_decision['risk_score'] = 800))).toBe('maximum');
    // The upstream fixtures' shape: send_email/medium/[contact_info] with risk_score 350 is standard.
    expect(
      tierWith((p) => {
        p.intent['action_type'] = 'send_email';
        p.intent['data_classes'] = ['contact_info'];
        p.policy_decision['risk_score'] = 350;
      }),
    ).toBe('standard');
  });

  it('a declared tier below the computed one never lowers it, and says so', () => {
    const signed = buildSignedBundle({
      now: FIXED_NOW,
      keys: KEYS,
      backend,
      tier: 'maximum',
      hooks: {
        payloads: (p) => {
          p.intent['security_tier'] = 'routine';
        },
      },
    });
    const response = makeVerifier().verify({ signed_bundle: signed.signed_bundle });
    expect(response.resolved_tier).toBe('maximum');
    expect(response.verified).toBe(true);
    expect(response.warnings).toContain(
      'Intent declares security_tier routine; verified at maximum (D10: a tier is never lowered)',
    );
  });
});
