// P502: an operator who wants it makes a V2 bundle that no key of the RPR's binding_keys signed fail, not only warn
// (P490): the VerifierPolicy member `require_principal_signature` (or the option `requirePrincipalSignature`), default
// off as the SDKs verify such bundles (P1). The failure is the operator's policy's: PROTO-E401 under `policy`.
import { describe, expect, it } from 'vitest';
import { parseVerifierPolicy } from '../policy/verifier-policy.ts';
import { borrowedRprBundle } from './borrowed-rpr-fixture.ts';
import { buildSignedBundle } from './build/index.ts';
import { HAS_SHARED_VECTORS, makeVerifier, upstream } from './test-support.ts';

const now = () => new Date();
const REQUIRED = { default_mode: 'hybrid_preferred', require_principal_signature: true };

describe('P502: require_principal_signature', () => {
  it.each([
    ['the policy member', { policy: REQUIRED }],
    ['the option', { requirePrincipalSignature: true }],
  ] as const)(
    "%s: a stranger's bundle signed by its passport keys fails with PROTO-E401",
    (_how, options) => {
      const fixture = borrowedRprBundle();
      const response = makeVerifier({ clock: now, ...options }).verify({ signed_bundle: fixture.stranger });
      expect(response.verified, JSON.stringify(response)).toBe(false);
      const details = response.error_details ?? [];
      expect(details.map((d) => [d.code, d.check])).toEqual([['PROTO-E401', 'policy']]);
      const message = details[0]?.message ?? '';
      expect(message).toContain('require_principal_signature');
      for (const kid of fixture.strangerKids) expect(message).toContain(kid);
      expect(message).toContain(fixture.humanId);
      expect(message).toContain(fixture.agentId);
      // The failure says it; the warning is not repeated.
      expect((response.warnings ?? []).filter((w) => w.includes('signed by agent keys only'))).toEqual([]);
    },
  );

  it('the dcp-ai profile answers DCP-E401', () => {
    const fixture = borrowedRprBundle({ profile: 'dcp-ai' });
    const response = makeVerifier({ clock: now, profile: 'dcp-ai', requirePrincipalSignature: true }).verify({
      signed_bundle: fixture.stranger,
    });
    expect(response.verified).toBe(false);
    expect(response.error_details?.map((d) => d.code)).toEqual(['DCP-E401']);
  });

  it("a bundle its principal's keys signed verifies as before, with no warning", () => {
    const fixture = borrowedRprBundle();
    const response = makeVerifier({ clock: now, policy: REQUIRED }).verify({
      signed_bundle: fixture.victim.signed_bundle,
    });
    expect(response.verified, JSON.stringify(response)).toBe(true);
    expect(response.warnings).toBeUndefined();
  });

  it('off by default and when false: verified with the P490 warning (SDK parity)', () => {
    const fixture = borrowedRprBundle();
    for (const options of [{}, { policy: { ...REQUIRED, require_principal_signature: false } }]) {
      const response = makeVerifier({ clock: now, ...options }).verify({ signed_bundle: fixture.stranger });
      expect(response.verified).toBe(true);
      expect(makeVerifier({ clock: now, ...options }).settings.requirePrincipalSignature).toBe(false);
    }
  });

  it('the option wins over the policy member, as the other policy members', () => {
    const fixture = borrowedRprBundle();
    const verifier = makeVerifier({ clock: now, policy: REQUIRED, requirePrincipalSignature: false });
    expect(verifier.settings.requirePrincipalSignature).toBe(false);
    expect(verifier.verify({ signed_bundle: fixture.stranger }).verified).toBe(true);
  });

  it('a member that is not a boolean is refused with the policy', () => {
    const parsed = parseVerifierPolicy({
      default_mode: 'hybrid_preferred',
      require_principal_signature: 'yes',
    });
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error.message).toContain('require_principal_signature');
  });

  it('V1 bundles are not concerned (no RPR binding keys)', () => {
    const built = buildSignedBundle({ version: '1.0' });
    const response = makeVerifier({ clock: now, requirePrincipalSignature: true }).verify({
      signed_bundle: built.signed_bundle,
    });
    expect(response.verified).toBe(true);
  });
});

describe.skipIf(!HAS_SHARED_VECTORS)('P502: the upstream bundles under require_principal_signature', () => {
  const verifier = makeVerifier({ profile: 'dcp-ai', requirePrincipalSignature: true });
  it('dual_hash_checkpoints_signed_by_agent_keys fails; basic_signed_by_rpr_keys still verifies', () => {
    const agentSigned = verifier.verify({
      signed_bundle: upstream('dual_hash_checkpoints_signed_by_agent_keys'),
    });
    expect(agentSigned.verified).toBe(false);
    expect(agentSigned.error_details?.map((d) => d.code)).toEqual(['DCP-E401']);
    expect(verifier.verify({ signed_bundle: upstream('basic_signed_by_rpr_keys') }).verified).toBe(true);
  });
});
