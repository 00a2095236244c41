// Jurisdiction attestations: signing under the JurisdictionAttestation context and offline verification.
// DECISIONS D21; PROTOCOL §9.6 (rpr_hash must match, valid issuer key, attested_at past, expires_at future).
import { describe, expect, it } from 'vitest';
import { PROFILES } from '../profile.ts';
import { DEFAULT_ATTESTATION_MAX_AGE_MS, signAttestation, verifyAttestation } from './attestation.ts';
import { at, sampleAttestation, T0, testKey } from './test-support.ts';
import type { IssuedAttestation } from './types.ts';

const KEY = testKey(3);
const OTHER = testKey(4);

function issued(overrides = {}, key = KEY): IssuedAttestation {
  const result = signAttestation(sampleAttestation(overrides), key.secretKey);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

describe('attestations', () => {
  it('verify with the issuer key and the expected rpr_hash', () => {
    const att = issued();
    const result = verifyAttestation(att, [KEY.publicKeyB64], { now: at(60), expectedRprHash: att.rpr_hash });
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.value.expiresAt?.toISOString()).toBe(att.expires_at);
  });

  it('fail for another rpr_hash, agent or jurisdiction than expected', () => {
    const att = issued();
    const rpr = verifyAttestation(att, [KEY.publicKeyB64], {
      now: T0,
      expectedRprHash: `sha256:${'00'.repeat(32)}`,
    });
    expect(rpr.ok === false && [rpr.error.reason, rpr.error.code]).toEqual(['rpr_mismatch', 'RPR_INVALID']);
    const agent = verifyAttestation(att, [KEY.publicKeyB64], { now: T0, expectedAgentId: 'agent:someone' });
    expect(agent.ok === false && agent.error.reason).toBe('agent_mismatch');
    const j = verifyAttestation(att, [KEY.publicKeyB64], { now: T0, expectedJurisdiction: 'DE' });
    expect(j.ok === false && j.error.reason).toBe('jurisdiction_mismatch');
  });

  it('fail once expired, and before attested_at (beyond the clock skew)', () => {
    const att = issued();
    const expired = verifyAttestation(att, [KEY.publicKeyB64], { now: at(30 * 86_400) });
    expect(expired.ok === false && [expired.error.reason, expired.error.code]).toEqual([
      'expired',
      'SIGNATURE_EXPIRED',
    ]);
    const early = verifyAttestation(att, [KEY.publicKeyB64], { now: at(-3600) });
    expect(early.ok === false && early.error.reason).toBe('not_yet_valid');
  });

  it('fail for an untrusted key, a tampered field, or a key outside its validity window', () => {
    const att = issued();
    const untrusted = verifyAttestation(att, [OTHER.publicKeyB64], { now: T0 });
    expect(untrusted.ok === false && untrusted.error.reason).toBe('untrusted_key');
    const tampered = verifyAttestation({ ...att, agent_id: 'agent:attested-2' }, [KEY.publicKeyB64], {
      now: T0,
    });
    expect(tampered.ok === false && tampered.error.reason).toBe('bad_signature');
    const retired = {
      public_key_b64: KEY.publicKeyB64,
      valid_from: at(-100).toISOString(),
      valid_until: at(-1).toISOString(),
    };
    const outside = verifyAttestation(att, [retired], { now: T0 });
    expect(outside.ok === false && outside.error.reason).toBe('untrusted_key');
    // Attested inside the key's window: valid while the key is, never after (issue 12 item 7).
    const old = issued({ attested_at: at(-50).toISOString() });
    expect(verifyAttestation(old, [retired], { now: at(-10) }).ok).toBe(true);
    const afterRetirement = verifyAttestation(old, [retired], { now: T0 });
    expect(
      afterRetirement.ok === false && [afterRetirement.error.reason, afterRetirement.error.code],
    ).toEqual(['key_retired', 'KEY_EXPIRED']);
    // A backdated attested_at with expires_at null does not bring a retired key back.
    const backdated = issued({ attested_at: at(-50).toISOString(), expires_at: null });
    const forever = verifyAttestation(backdated, [retired], { now: T0 });
    expect(forever.ok === false && forever.error.reason).toBe('key_retired');
  });

  it('refuse another jurisdiction before any signature check, with its own reason', () => {
    const att = issued({ jurisdiction: 'FR' });
    // Even under a key that is not trusted at all, the mismatch is what the caller is told.
    const j = verifyAttestation(att, [OTHER.publicKeyB64], { now: T0, expectedJurisdiction: 'US' });
    expect(j.ok === false && [j.error.reason, j.error.code, j.error.message]).toEqual([
      'jurisdiction_mismatch',
      'RPR_INVALID',
      "attestation: jurisdiction FR is not the bundle's US",
    ]);
    expect(verifyAttestation(att, [KEY.publicKeyB64], { now: T0, expectedJurisdiction: 'FR' }).ok).toBe(true);
  });

  it('tolerate attested_at ahead of now only within the clock skew (5 min by default)', () => {
    const att = issued({ attested_at: at(240).toISOString() });
    expect(verifyAttestation(att, [KEY.publicKeyB64], { now: T0 }).ok).toBe(true);
    const ahead = verifyAttestation(att, [KEY.publicKeyB64], { now: T0, maxClockSkewMs: 60_000 });
    expect(ahead.ok === false && ahead.error.reason).toBe('not_yet_valid');
    const late = issued({ attested_at: at(301).toISOString() });
    expect(verifyAttestation(late, [KEY.publicKeyB64], { now: T0 }).ok).toBe(false);
  });

  it('age out without expires_at: DEFAULT_ATTESTATION_MAX_AGE_MS (30 days) or maxAgeMs', () => {
    expect(DEFAULT_ATTESTATION_MAX_AGE_MS).toBe(30 * 86_400_000);
    const open = issued({ expires_at: null });
    expect(verifyAttestation(open, [KEY.publicKeyB64], { now: at(30 * 86_400) }).ok).toBe(true);
    const old = verifyAttestation(open, [KEY.publicKeyB64], { now: at(30 * 86_400 + 1) });
    expect(old.ok === false && [old.error.reason, old.error.code]).toEqual(['too_old', 'SIGNATURE_EXPIRED']);
    const short = verifyAttestation(open, [KEY.publicKeyB64], { now: at(2 * 86_400), maxAgeMs: 86_400_000 });
    expect(short.ok === false && short.error.reason).toBe('too_old');
    // With an explicit expires_at the issuer's choice stands (expiry is checked instead).
    const dated = issued({ expires_at: at(60 * 86_400).toISOString() });
    expect(verifyAttestation(dated, [KEY.publicKeyB64], { now: at(45 * 86_400) }).ok).toBe(true);
  });

  it('are domain-separated from revocation lists and between profiles', () => {
    const att = issued();
    const dcp = verifyAttestation(att, [KEY.publicKeyB64], { now: T0, profile: PROFILES['dcp-ai'] });
    expect(dcp.ok === false && dcp.error.reason).toBe('bad_signature');
  });

  it('accept the DCP-01 form (type member, expires_at null) and refuse schema violations without throwing', () => {
    const open = issued({ type: 'jurisdiction_attestation', expires_at: null });
    expect(verifyAttestation(open, [KEY.publicKeyB64], { now: at(10 * 86_400) }).ok).toBe(true);
    for (const input of [
      undefined,
      {},
      { ...issued(), extra: true },
      { ...issued(), rpr_hash: 'sha256:XYZ' },
    ]) {
      const result = verifyAttestation(input, [KEY.publicKeyB64], { now: T0 });
      expect(result.ok === false && result.error.reason).toBe('schema');
    }
    expect(signAttestation(sampleAttestation({ agent_id: 'abc' }), KEY.secretKey).ok).toBe(false);
  });
});

// RFC 3339 leap seconds (`…:60`), which the schema accepts and Date.parse calls NaN: each time is read on its safe
// side (P178). Before, every case here failed as unreadable: a trusted key with such a window was dropped
// (untrusted_key), and an attestation with such a time was a schema failure.
describe('attestation times at a leap second', () => {
  const LEAP = '2026-03-01T23:59:60Z';
  const justBefore = new Date('2026-03-01T23:59:59.999Z');
  const midnight = new Date('2026-03-02T00:00:00.000Z');

  it('expires_at: expired from the last millisecond before it (as at 23:59:59.999), not at the next midnight', () => {
    const att = issued({ expires_at: LEAP });
    const valid = verifyAttestation(att, [KEY.publicKeyB64], { now: new Date('2026-03-01T23:59:59.998Z') });
    expect(valid.ok).toBe(true);
    const expired = verifyAttestation(att, [KEY.publicKeyB64], { now: justBefore });
    expect(expired.ok === false && expired.error.reason).toBe('expired');
  });

  it('attested_at: not in the future from the next midnight on, counted against the clock skew', () => {
    const att = issued({ attested_at: LEAP, expires_at: '2026-03-10T00:00:00Z' });
    const skew = { maxClockSkewMs: 60_000 };
    expect(
      verifyAttestation(att, [KEY.publicKeyB64], { now: new Date('2026-03-01T23:59:00.000Z'), ...skew }).ok,
    ).toBe(true);
    const early = verifyAttestation(att, [KEY.publicKeyB64], {
      now: new Date('2026-03-01T23:58:59.999Z'),
      ...skew,
    });
    expect(early.ok === false && early.error.reason).toBe('not_yet_valid');
  });

  it('a trusted key window: valid_until ends at the millisecond before, valid_from starts at the next midnight', () => {
    const att = issued({ attested_at: '2026-03-01T12:00:00Z', expires_at: '2026-03-10T00:00:00Z' });
    const retiring = { public_key_b64: KEY.publicKeyB64, valid_from: null, valid_until: LEAP };
    expect(verifyAttestation(att, [retiring], { now: justBefore }).ok).toBe(true);
    const retired = verifyAttestation(att, [retiring], { now: midnight });
    expect(retired.ok === false && retired.error.reason).toBe('key_retired');
    const starting = { public_key_b64: KEY.publicKeyB64, valid_from: LEAP, valid_until: null };
    const signedInLeap = issued({ attested_at: LEAP, expires_at: '2026-03-10T00:00:00Z' });
    expect(verifyAttestation(signedInLeap, [starting], { now: midnight }).ok).toBe(true);
    const signedBefore = issued({
      attested_at: '2026-03-01T23:59:59.999Z',
      expires_at: '2026-03-10T00:00:00Z',
    });
    const outside = verifyAttestation(signedBefore, [starting], { now: midnight });
    expect(outside.ok === false && outside.error.reason).toBe('untrusted_key');
  });
});
