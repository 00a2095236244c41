// The jurisdictional revocation list: signature construction, offline verification and its refusals.
// DECISIONS D20 (context(Revocation) ‖ 0x00 ‖ jcs(list without signature); stale, rollback, untrusted key).
import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalizeV2 } from '../canonical/index.ts';
import { createNativeBackend, createNobleBackend } from '../crypto/index.ts';
import { decodeBase64Strict, encodeBase64 } from '../encoding/index.ts';
import { PROFILES } from '../profile.ts';
import {
  findRevocation,
  isAgentRevoked,
  reasonHash,
  signRevocationList,
  verifyRevocationList,
} from './list.ts';
import { at, sampleList, T0, testKey } from './test-support.ts';
import type { RevocationList } from './types.ts';

const ISSUER_KEY = testKey(1);
const OTHER_KEY = testKey(2);

function signed(overrides = {}, key = ISSUER_KEY, profile = PROFILES.proto): RevocationList {
  const result = signRevocationList(sampleList(overrides), key.secretKey, { profile });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

describe('reasonHash', () => {
  it('is sha256: + SHA-256 of the UTF-8 text', () => {
    expect(reasonHash('abc')).toBe('sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(reasonHash('clé compromise')).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

describe('signRevocationList', () => {
  it('signs context(Revocation) ‖ 0x00 ‖ jcs(list without signature) with Ed25519 (D20)', () => {
    const list = signed();
    expect(list.signature.alg).toBe('ed25519');
    expect(list.signature.public_key_b64).toBe(ISSUER_KEY.publicKeyB64);
    const { signature, ...unsigned } = list;
    const jcs = canonicalizeV2(unsigned);
    if (!jcs.ok) throw new Error('jcs');
    const message = Buffer.concat([
      Buffer.from('PROTO.v2.Revocation', 'utf8'),
      Buffer.of(0),
      Buffer.from(jcs.value, 'utf8'),
    ]);
    const spki = Buffer.concat([
      Buffer.from('302a300506032b6570032100', 'hex'),
      Buffer.from(ISSUER_KEY.publicKey),
    ]);
    const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
    expect(nodeVerify(null, message, key, Buffer.from(signature.sig_b64, 'base64'))).toBe(true);
  });

  it('uses the DCP-AI context under the dcp-ai profile (D1), so a proto list does not verify there', () => {
    const dcp = signed({}, ISSUER_KEY, PROFILES['dcp-ai']);
    expect(
      verifyRevocationList(dcp, [ISSUER_KEY.publicKeyB64], { now: T0, profile: PROFILES['dcp-ai'] }).ok,
    ).toBe(true);
    const proto = verifyRevocationList(dcp, [ISSUER_KEY.publicKeyB64], { now: T0 });
    expect(proto.ok === false && proto.error.reason).toBe('bad_signature');
  });

  it('returns errors instead of throwing for a bad key or a list outside the schema', () => {
    const shortKey = signRevocationList(sampleList(), new Uint8Array(32));
    expect(shortKey.ok).toBe(false);
    const mismatched = new Uint8Array(ISSUER_KEY.secretKey);
    mismatched.set(OTHER_KEY.publicKey, 32);
    expect(signRevocationList(sampleList(), mismatched).ok).toBe(false);
    const float = signRevocationList(sampleList({ list_number: 1.5 }), ISSUER_KEY.secretKey);
    expect(float.ok === false && float.error.code).toBe('BUNDLE_SCHEMA_INVALID');
    const badHash = signRevocationList(
      sampleList({
        entries: [{ agent_id: 'agent:x-1', revoked_at: T0.toISOString(), reason_hash: 'md5:00' }],
      }),
      ISSUER_KEY.secretKey,
    );
    expect(badHash.ok === false && badHash.error.code).toBe('ARTIFACT_SCHEMA_INVALID');
  });

  it('is verified the same by the native and the noble backend', () => {
    const list = signed();
    for (const backend of [createNativeBackend(), createNobleBackend()]) {
      expect(verifyRevocationList(list, [ISSUER_KEY.publicKeyB64], { now: T0, backend }).ok).toBe(true);
    }
  });
});

describe('verifyRevocationList', () => {
  it('accepts a fresh list signed by a trusted key and reports its number and times', () => {
    const result = verifyRevocationList(signed(), [OTHER_KEY.publicKeyB64, ISSUER_KEY.publicKeyB64], {
      now: at(60),
      minListNumber: 7,
      expectedJurisdiction: 'FR',
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.listNumber).toBe(7);
    expect(result.value.nextUpdate.toISOString()).toBe(at(86_400).toISOString());
    expect(result.value.signer.public_key_b64).toBe(ISSUER_KEY.publicKeyB64);
  });

  it('refuses a tampered entry or signature (bad_signature, E100)', () => {
    const list = signed();
    const tampered = { ...list, entries: [] };
    const r1 = verifyRevocationList(tampered, [ISSUER_KEY.publicKeyB64], { now: T0 });
    expect(r1.ok === false && [r1.error.reason, r1.error.code]).toEqual([
      'bad_signature',
      'CLASSICAL_SIG_INVALID',
    ]);
    const sig = decodeBase64Strict(list.signature.sig_b64)!;
    sig[0] = (sig[0] ?? 0) ^ 1;
    const flipped = { ...list, signature: { ...list.signature, sig_b64: encodeBase64(sig) } };
    const r2 = verifyRevocationList(flipped, [ISSUER_KEY.publicKeyB64], { now: T0 });
    expect(r2.ok === false && r2.error.reason).toBe('bad_signature');
  });

  it('refuses a list signed by a key that is not trusted (untrusted_key), even if the signature is valid', () => {
    const result = verifyRevocationList(signed({}, OTHER_KEY), [ISSUER_KEY.publicKeyB64], { now: T0 });
    expect(result.ok === false && result.error.reason).toBe('untrusted_key');
    expect(verifyRevocationList(signed(), [], { now: T0 }).ok).toBe(false);
  });

  it('refuses a stale list (now > next_update) but keeps it as authentic', () => {
    const result = verifyRevocationList(signed(), [ISSUER_KEY.publicKeyB64], { now: at(86_401) });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect([result.error.reason, result.error.code]).toEqual(['stale', 'SIGNATURE_EXPIRED']);
    expect(result.error.authentic?.listNumber).toBe(7);
    // Exactly at next_update it is still usable.
    expect(verifyRevocationList(signed(), [ISSUER_KEY.publicKeyB64], { now: at(86_400) }).ok).toBe(true);
  });

  it('refuses a rollback to a lower list_number than already seen; the same number is fine', () => {
    const result = verifyRevocationList(signed(), [ISSUER_KEY.publicKeyB64], { now: T0, minListNumber: 8 });
    expect(result.ok === false && [result.error.reason, result.error.code]).toEqual([
      'rollback',
      'SEQUENCE_OUT_OF_ORDER',
    ]);
    expect(verifyRevocationList(signed(), [ISSUER_KEY.publicKeyB64], { now: T0, minListNumber: 7 }).ok).toBe(
      true,
    );
  });

  it('refuses a list for another jurisdiction or issuer than expected', () => {
    const list = signed();
    const j = verifyRevocationList(list, [ISSUER_KEY.publicKeyB64], { now: T0, expectedJurisdiction: 'DE' });
    expect(j.ok === false && j.error.reason).toBe('wrong_jurisdiction');
    const i = verifyRevocationList(list, [ISSUER_KEY.publicKeyB64], {
      now: T0,
      expectedIssuer: 'someone-else',
    });
    expect(i.ok === false && i.error.reason).toBe('wrong_issuer');
  });

  it('refuses a list whose updated_at lies beyond the clock skew in the future', () => {
    const result = verifyRevocationList(signed(), [ISSUER_KEY.publicKeyB64], { now: at(-3600) });
    expect(result.ok === false && result.error.reason).toBe('not_yet_valid');
    expect(verifyRevocationList(signed(), [ISSUER_KEY.publicKeyB64], { now: at(-60) }).ok).toBe(true);
  });

  it('honours trusted-key validity windows (rotation)', () => {
    const retired = {
      public_key_b64: ISSUER_KEY.publicKeyB64,
      valid_from: at(-86_400).toISOString(),
      valid_until: at(-1).toISOString(),
    };
    const result = verifyRevocationList(signed(), [retired], { now: T0 });
    expect(result.ok === false && result.error.reason).toBe('untrusted_key');
    const current = { ...retired, valid_until: null };
    expect(verifyRevocationList(signed(), [current], { now: T0 }).ok).toBe(true);
  });

  it('reports schema problems without throwing, for any input', () => {
    for (const input of [
      null,
      42,
      'list',
      [],
      {},
      { ...signed(), extra: 1 },
      { ...signed(), list_number: -1 },
    ]) {
      const result = verifyRevocationList(input, [ISSUER_KEY.publicKeyB64], { now: T0 });
      expect(result.ok === false && result.error.reason).toBe('schema');
    }
    const backwards = signed({ next_update: at(-1).toISOString() });
    const result = verifyRevocationList(backwards, [ISSUER_KEY.publicKeyB64], { now: T0 });
    expect(result.ok === false && result.error.reason).toBe('schema');
  });

  it('ignores malformed trusted keys instead of throwing', () => {
    const result = verifyRevocationList(
      signed(),
      ['not base64!', { public_key_b64: 'AAAA' }, ISSUER_KEY.publicKeyB64],
      { now: T0 },
    );
    expect(result.ok).toBe(true);
  });
});

describe('isAgentRevoked / findRevocation', () => {
  it('finds the agent or any signer id', () => {
    const list = signed();
    expect(isAgentRevoked(list, 'agent:revoked-1')).toBe(true);
    expect(isAgentRevoked(list, 'agent:other')).toBe(false);
    expect(findRevocation(list, ['agent:other', 'agent:revoked-1'])?.agent_id).toBe('agent:revoked-1');
    expect(findRevocation(list, [])).toBeUndefined();
  });
});
