// P435 (P386's rule for the attestation): `verify(request)`, core's offline verdict, no longer ignores a request's
// `jurisdiction_attestation`. With no issuer keys it cannot pass one (PROTOCOL §9.6: the issuer signs, not the
// bundle), but what is in hand can fail one: malformed, another agent, another RPR, another jurisdiction, expired by
// its own fields. One that holds is `skipped`, said to be unchecked, as POST /verify answers with no trusted keys.
import { describe, expect, it } from 'vitest';
import { selectCryptoBackend } from '../crypto/index.ts';
import { signAttestation } from '../revocation/attestation.ts';
import type { UnsignedAttestation } from '../revocation/types.ts';
import { buildSignedBundle } from './build/index.ts';
import { createVerifier } from './verifier.ts';

const built = buildSignedBundle({ tier: 'routine', entries: 2 });
const other = buildSignedBundle({ tier: 'routine', entries: 2 });
const payloadOf = (b: typeof built) => b.signed_bundle['bundle'] as Record<string, Record<string, unknown>>;
const agentOf = (b: typeof built) =>
  (payloadOf(b)['agent_passport'] as { payload: { agent_id: string } }).payload.agent_id;
const rprOf = (b: typeof built) => (payloadOf(b)['manifest'] as { rpr_hash: string }).rpr_hash;
const verifier = (() => {
  const made = createVerifier({});
  if (!made.ok) throw new Error(made.error.message);
  return made.value;
})();
const issuer = selectCryptoBackend().generateKeyPair('ed25519');
const now = Date.now();
const base: UnsignedAttestation = {
  issuer: 'did:web:attest.example.us',
  jurisdiction: 'US',
  rpr_hash: rprOf(built),
  agent_id: agentOf(built),
  attested_at: new Date(now - 60_000).toISOString(),
  expires_at: new Date(now + 3_600_000).toISOString(),
};
function sign(fields: Partial<UnsignedAttestation>) {
  const signed = signAttestation({ ...base, ...fields }, issuer.secretKey);
  if (!signed.ok) throw new Error(signed.error.message);
  return signed.value;
}
const verify = (attestation: unknown) =>
  verifier.verify({ signed_bundle: built.signed_bundle, jurisdiction_attestation: attestation });

describe('verify(request) with a jurisdiction_attestation (P435)', () => {
  it.each([
    ['another agent', () => sign({ agent_id: agentOf(other) }), 'PROTO-E304'],
    ['another RPR', () => sign({ rpr_hash: rprOf(other) }), 'PROTO-E304'],
    ['another jurisdiction', () => sign({ jurisdiction: 'FR' }), 'PROTO-E304'],
    [
      'expired by its own expires_at',
      () =>
        sign({
          attested_at: new Date(now - 7_200_000).toISOString(),
          expires_at: new Date(now - 3_600_000).toISOString(),
        }),
      'PROTO-E104',
    ],
    [
      'attested in the future',
      () =>
        sign({
          attested_at: new Date(now + 3_600_000).toISOString(),
          expires_at: new Date(now + 7_200_000).toISOString(),
        }),
      'PROTO-E104',
    ],
    ['malformed (no signature)', () => ({ ...base }), 'PROTO-E002'],
    ['malformed (not an attestation)', () => ({ hello: 'world' }), 'PROTO-E002'],
  ])('%s: not verified, attestation fail', (_what, make, code) => {
    const answer = verify(make());
    expect(answer.verified).toBe(false);
    expect(answer.checks.attestation).toBe('fail');
    const details = answer.error_details ?? [];
    expect(details.map((d) => d.check)).toEqual(['attestation']);
    expect(details[0]?.code).toBe(code);
    expect(answer.warnings?.some((w) => w.startsWith('jurisdiction_attestation not checked'))).toBeFalsy();
  });

  it('this bundle’s own attestation: verified, attestation skipped and said to be unchecked (control)', () => {
    const answer = verify(sign({}));
    expect(answer.verified).toBe(true);
    expect(answer.checks.attestation).toBe('skipped');
    expect(answer.warnings).toEqual(
      expect.arrayContaining([expect.stringMatching(/^jurisdiction_attestation not checked: /)]),
    );
  });

  it('null is no attestation, and none leaves the answer as before (control)', () => {
    for (const answer of [verify(null), verifier.verify({ signed_bundle: built.signed_bundle })]) {
      expect(answer.verified).toBe(true);
      expect(answer.warnings?.some((w) => w.startsWith('jurisdiction_attestation'))).toBeFalsy();
    }
  });
});
