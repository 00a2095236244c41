// P490: a V2 bundle whose composite signature no key of the RPR's binding_keys made. The RPR names no agent and no
// passport key, so a stranger can carry another agent's public RPR beside its own passport and sign the bundle with
// that passport's keys: every signature holds (D8 finds the kid in the passport first) and upstream SDK bundles are
// signed that way too, so the verdict stays `verified`, but it must say that the principal bound nothing here.
import { describe, expect, it } from 'vitest';
import { borrowedRprBundle } from './borrowed-rpr-fixture.ts';
import { buildSignedBundle } from './build/index.ts';
import { HAS_SHARED_VECTORS, makeVerifier, upstream } from './test-support.ts';

const now = () => new Date();

function agentOnly(warnings: readonly string[] | undefined): string[] {
  return (warnings ?? []).filter((w) => w.includes('signed by agent keys only'));
}

describe('P490: the bundle signed by agent keys only', () => {
  it.each(['proto', 'dcp-ai'] as const)(
    "%s: a stranger's bundle with a copied RPR, signed by its own passport keys, is verified with the warning",
    (profile) => {
      const fixture = borrowedRprBundle({ profile });
      const response = makeVerifier({ profile, clock: now }).verify({ signed_bundle: fixture.stranger });
      expect(response.verified, JSON.stringify(response)).toBe(true);
      const warnings = agentOnly(response.warnings);
      expect(warnings, JSON.stringify(response.warnings)).toHaveLength(1);
      const warning = warnings[0] as string;
      expect(warning).toContain(fixture.humanId);
      expect(warning).toContain(fixture.agentId);
      for (const kid of fixture.strangerKids) expect(warning).toContain(kid);
      expect(warning).toContain('its RPR may be a copy');
    },
  );

  it('the same with a passport naming an agent id of the stranger’s choosing', () => {
    const fixture = borrowedRprBundle({ agentId: 'agent-of-anyone' });
    const response = makeVerifier({ clock: now }).verify({ signed_bundle: fixture.stranger });
    expect(response.verified).toBe(true);
    expect(agentOnly(response.warnings)).toHaveLength(1);
  });

  it("the victim's own bundle, signed by its principal's keys, draws no such warning", () => {
    const fixture = borrowedRprBundle();
    const response = makeVerifier({ clock: now }).verify({ signed_bundle: fixture.victim.signed_bundle });
    expect(response.verified).toBe(true);
    expect(response.warnings).toBeUndefined();
  });

  it('ids are spelled out (P388): an agent id with an invisible character is written with it', () => {
    const fixture = borrowedRprBundle({ agentId: 'agent\u200b-x' });
    const response = makeVerifier({ clock: now }).verify({ signed_bundle: fixture.stranger });
    const warning = agentOnly(response.warnings)[0] as string;
    expect(warning).toContain('agent⟨U+200B⟩-x');
  });

  it('a bundle that fails its bundle signature gets no such warning (the failure says it)', () => {
    const fixture = borrowedRprBundle();
    const signed = structuredClone(fixture.stranger) as Record<string, Record<string, unknown>>;
    const manifest = (signed['bundle'] as Record<string, Record<string, unknown>>)['manifest'] as Record<
      string,
      unknown
    >;
    manifest['audit_count'] = 9;
    const response = makeVerifier({ clock: now }).verify({ signed_bundle: signed });
    expect(response.verified).toBe(false);
    expect(agentOnly(response.warnings)).toEqual([]);
  });

  it('V1 answers carry no warnings (D12), whoever signed', () => {
    const built = buildSignedBundle({ version: '1.0' });
    const response = makeVerifier({ clock: now }).verify({ signed_bundle: built.signed_bundle });
    expect(response.verified).toBe(true);
    expect(response.warnings).toBeUndefined();
  });
});

describe.skipIf(!HAS_SHARED_VECTORS)('P490: the upstream bundles', () => {
  const verifier = makeVerifier({ profile: 'dcp-ai' });
  it('dual_hash_checkpoints_signed_by_agent_keys is verified with the warning (the SDK signs with either)', () => {
    const response = verifier.verify({
      signed_bundle: upstream('dual_hash_checkpoints_signed_by_agent_keys'),
    });
    expect(response.verified).toBe(true);
    expect(agentOnly(response.warnings)).toEqual([
      'the bundle is signed by agent keys only (kids ef879cea1280e3f8d418c2b5eb669f6c, ' +
        "bcd718721175679ac64beb4b3c185844): no key of the responsible principal's binding_keys signed it, so " +
        "nothing the principal (RPR human_id 'human-fixture-001') signed binds agent 'agent-fixture-001''s " +
        'passport (its RPR may be a copy)',
    ]);
  });

  it('basic_signed_by_rpr_keys and classical_only_bundle (signed by the RPR keys) draw no such warning', () => {
    for (const name of ['basic_signed_by_rpr_keys', 'classical_only_bundle'] as const)
      expect(agentOnly(verifier.verify({ signed_bundle: upstream(name) }).warnings), name).toEqual([]);
  });
});
