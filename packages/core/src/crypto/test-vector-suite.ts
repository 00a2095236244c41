// Test-only: registers the Vitest checks every crypto vector file must pass, in BOTH backends.
// PROTOCOL §3–4, §12 (what the interop vectors prove); docs/architecture.md §2 (every vector through both backends).

import { describe, expect, it } from 'vitest';
import { CONTEXT_NAMES, contextString, type ProtocolProfile } from '../profile.ts';
import { ALGORITHM_SIZES } from './algorithms.ts';
import type { CryptoBackend } from './backend.ts';
import { concatBytes, encodeBase64, toHex, utf8 } from './bytes.ts';
import {
  type CompositeSignature,
  type CompositeVerifyResult,
  compositeVerify,
  parseCompositeSignature,
} from './composite.ts';
import { domainSeparatedMessage } from './domain.ts';
import { publicKeyFromSecret } from './keys.ts';
import { deriveKid } from './kid.ts';
import { createNativeBackend } from './native-backend.ts';
import { createNobleBackend } from './noble-backend.ts';
import { b64, type CryptoVectorFile, contextNameOf } from './test-vectors.ts';

export const BACKENDS: readonly (readonly [string, CryptoBackend])[] = [
  ['native', createNativeBackend()],
  ['noble', createNobleBackend()],
];

export function otherBackend(backend: CryptoBackend): CryptoBackend {
  return BACKENDS.find(([, b]) => b !== backend)![1];
}

/** What a verdict is, without the wording of its messages. */
export function verdict(result: CompositeVerifyResult) {
  return {
    valid: result.valid,
    classical: result.classical,
    pq: result.pq,
    codes: result.errors.map((e) => e.code),
  };
}

export function registerCryptoVectorSuite(
  label: string,
  vectors: CryptoVectorFile,
  profile: ProtocolProfile,
): void {
  const edKey = vectors.test_keys.ed25519;
  const pqKey = vectors.test_keys.ml_dsa_65;
  const publicKeys = { classical: b64(edKey.public_key_b64), pq: b64(pqKey.public_key_b64) };
  const payload = (key: string) => {
    const entry = vectors.canonicalization[key];
    if (entry === undefined) throw new Error(`vector refers to unknown payload ${key}`);
    return utf8(entry.expected_canonical);
  };
  const ctx = (context: string) => {
    const name = contextNameOf(profile, context);
    if (name === undefined) throw new Error(`${context} is not a ${profile.name} context`);
    return contextString(profile, name);
  };

  describe(`${label}: keys, kids and domain separation`, () => {
    it('test keys have the protocol sizes and their kids derive from their public keys', () => {
      expect(edKey.alg).toBe('ed25519');
      expect(pqKey.alg).toBe('ml-dsa-65');
      expect(publicKeys.classical.length).toBe(ALGORITHM_SIZES.ed25519.publicKey);
      expect(publicKeys.pq.length).toBe(ALGORITHM_SIZES['ml-dsa-65'].publicKey);
      expect(b64(edKey.secret_key_b64).length).toBe(ALGORITHM_SIZES.ed25519.secretKey);
      expect(b64(pqKey.secret_key_b64).length).toBe(ALGORITHM_SIZES['ml-dsa-65'].secretKey);
      expect(deriveKid('ed25519', publicKeys.classical)).toBe(edKey.kid);
      expect(deriveKid('ml-dsa-65', publicKeys.pq)).toBe(pqKey.kid);
    });

    it('publicKeyFromSecret recovers both public keys from the secret keys', () => {
      expect(publicKeyFromSecret('ed25519', b64(edKey.secret_key_b64))).toEqual(publicKeys.classical);
      expect(publicKeyFromSecret('ml-dsa-65', b64(pqKey.secret_key_b64))).toEqual(publicKeys.pq);
    });

    it.each(Object.entries(vectors.kid_derivation))('kid_derivation %s', (_name, vector) => {
      const kid = deriveKid(vector.alg, b64(vector.public_key_b64));
      expect(kid).toBe(vector.expected_kid);
      expect(kid).toMatch(/^[0-9a-f]{32}$/);
    });

    it('domain_separated_messages: passport, intent and audit DSMs byte for byte', () => {
      const dsm = (name: 'AgentPassport' | 'Intent' | 'AuditEvent', key: string) =>
        toHex(domainSeparatedMessage(contextString(profile, name), payload(key)));
      expect(dsm('AgentPassport', 'agent_passport')).toBe(vectors.domain_separated_messages.passport_dsm);
      expect(dsm('Intent', 'intent')).toBe(vectors.domain_separated_messages.intent_dsm);
      expect(dsm('AuditEvent', 'audit_event')).toBe(vectors.domain_separated_messages.audit_dsm);
    });

    it(`domain_separation_all_contexts: exactly the 18 ${profile.name} contexts, each DSM byte for byte, all distinct`, () => {
      const all = vectors.domain_separation_all_contexts;
      expect(Object.keys(all.dsm_hex)).toEqual([...CONTEXT_NAMES]);
      const body = utf8(all.payload_canonical);
      for (const name of CONTEXT_NAMES) {
        expect(toHex(domainSeparatedMessage(contextString(profile, name), body)), name).toBe(
          all.dsm_hex[name],
        );
      }
      expect(new Set(Object.values(all.dsm_hex)).size).toBe(CONTEXT_NAMES.length);
    });
  });

  describe.each(BACKENDS)(`${label}: %s backend`, (_name, backend) => {
    const other = otherBackend(backend);
    const run = (sig: CompositeSignature, context: string, body: Uint8Array) => {
      const mine = compositeVerify(backend, sig, publicKeys, context, body);
      // Identical verdicts in both backends, for every vector.
      expect(verdict(mine)).toEqual(verdict(compositeVerify(other, sig, publicKeys, context, body)));
      return verdict(mine);
    };

    it.each(Object.entries(vectors.ed25519_signatures))(
      'ed25519_signatures %s verifies and re-signs to the same bytes',
      (_name, vector) => {
        const dsm = domainSeparatedMessage(ctx(vector.context), payload(vector.payload_key));
        const signature = b64(vector.sig_b64);
        expect(vector.signer_kid).toBe(edKey.kid);
        expect(backend.verify('ed25519', publicKeys.classical, dsm, signature)).toBe(true);
        expect(other.verify('ed25519', publicKeys.classical, dsm, signature)).toBe(true);
        // RFC 8032 signing is deterministic: the test secret key reproduces the vector exactly.
        expect(encodeBase64(backend.sign('ed25519', b64(edKey.secret_key_b64), dsm))).toBe(vector.sig_b64);
      },
    );

    it.each(Object.entries(vectors.composite_signatures))(
      'composite_signatures %s: both halves pass; PQ covers DSM ‖ classical signature',
      (_name, vector) => {
        const parsed = parseCompositeSignature(vector.composite_sig);
        expect(parsed.ok).toBe(true);
        const body = payload(vector.payload_key);
        expect(run(vector.composite_sig, ctx(vector.context), body)).toEqual({
          valid: true,
          classical: 'pass',
          pq: 'pass',
          codes: [],
        });
        const dsm = domainSeparatedMessage(ctx(vector.context), body);
        const classicalSig = b64(vector.composite_sig.classical.sig_b64);
        const pqSig = b64(vector.composite_sig.pq!.sig_b64);
        expect(backend.verify('ml-dsa-65', publicKeys.pq, concatBytes(dsm, classicalSig), pqSig)).toBe(true);
        expect(backend.verify('ml-dsa-65', publicKeys.pq, dsm, pqSig)).toBe(false);
        expect(vector.composite_sig.classical.kid).toBe(edKey.kid);
        expect(vector.composite_sig.pq!.kid).toBe(pqKey.kid);
      },
    );

    it.each(Object.entries(vectors.classical_only_signatures))(
      'classical_only_signatures %s: classical passes, pq absent, valid',
      (_name, vector) => {
        expect(vector.composite_sig.pq).toBeNull();
        expect(vector.composite_sig.binding).toBe('classical_only');
        expect(run(vector.composite_sig, ctx(vector.context), payload(vector.payload_key))).toEqual({
          valid: true,
          classical: 'pass',
          pq: 'absent',
          codes: [],
        });
      },
    );

    it('attack stripping_pq_removal: pq_over_classical without pq is invalid (D9)', () => {
      const v = vectors.attack_vectors.stripping_pq_removal;
      const result = run(v.composite_sig, ctx(v.context), payload(v.payload_key));
      expect(result.valid).toBe(v.expected_valid);
      expect(result).toEqual({
        valid: false,
        classical: 'pass',
        pq: 'absent',
        codes: ['COMPOSITE_BINDING_INVALID'],
      });
    });

    it('attack stripping_pq_with_downgrade: classical still verifies under classical_only (policy must catch it)', () => {
      const v = vectors.attack_vectors.stripping_pq_with_downgrade;
      const result = run(v.composite_sig, ctx(v.context), payload(v.payload_key));
      expect(result.classical === 'pass').toBe(v.expected_classical_valid);
      expect(result.pq === 'pass').toBe(v.expected_pq_valid);
      // Technically valid as classical_only: rejecting it is hybrid_required policy's job (D9).
      expect(result).toEqual({ valid: true, classical: 'pass', pq: 'absent', codes: [] });
    });

    it('attack tampered_classical_sig: both halves fail (PQ covers the classical bytes)', () => {
      const v = vectors.attack_vectors.tampered_classical_sig;
      const result = run(v.composite_sig, ctx(v.context), payload(v.payload_key));
      expect(result.valid).toBe(v.expected_valid);
      expect(result.classical === 'pass').toBe(v.expected_classical_valid);
      expect(result.pq === 'pass').toBe(v.expected_pq_valid);
      expect(result).toEqual({
        valid: false,
        classical: 'fail',
        pq: 'fail',
        codes: ['CLASSICAL_SIG_INVALID', 'PQ_SIG_INVALID'],
      });
    });

    it('attack tampered_pq_sig: PQ fails, classical still passes', () => {
      const v = vectors.attack_vectors.tampered_pq_sig;
      const result = run(v.composite_sig, ctx(v.context), payload(v.payload_key));
      expect(result.valid).toBe(v.expected_valid);
      expect(result.pq === 'pass').toBe(v.expected_pq_valid);
      expect(result).toEqual({ valid: false, classical: 'pass', pq: 'fail', codes: ['PQ_SIG_INVALID'] });
    });

    it('attack cross_context_replay: valid under its signing context, invalid under another', () => {
      const v = vectors.attack_vectors.cross_context_replay;
      const body = payload(v.payload_key);
      expect(run(v.composite_sig, ctx(v.sign_context), body).valid).toBe(true);
      const replayed = run(v.composite_sig, ctx(v.verify_context), body);
      expect(replayed.valid).toBe(v.expected_valid);
      expect(replayed).toEqual({
        valid: false,
        classical: 'fail',
        pq: 'fail',
        codes: ['CLASSICAL_SIG_INVALID', 'PQ_SIG_INVALID'],
      });
    });

    it('session_splicing: each session signature verifies on its own payload, not on the other', () => {
      const { session_a: a, session_b: b } = vectors.session_splicing;
      expect(a.nonce).not.toBe(b.nonce);
      expect(a.passport_canonical).toContain(a.nonce);
      expect(b.intent_canonical).toContain(b.nonce);
      const passportCtx = contextString(profile, 'AgentPassport');
      const intentCtx = contextString(profile, 'Intent');
      const ok = { valid: true, classical: 'pass', pq: 'pass', codes: [] };
      expect(run(a.passport_composite_sig, passportCtx, utf8(a.passport_canonical))).toEqual(ok);
      expect(run(b.intent_composite_sig, intentCtx, utf8(b.intent_canonical))).toEqual(ok);
      // Splicing one session's signature onto the other session's artifact fails; catching mixed
      // nonces across artifacts is the bundle engine's check.
      expect(run(a.passport_composite_sig, intentCtx, utf8(b.intent_canonical)).valid).toBe(false);
      expect(run(b.intent_composite_sig, passportCtx, utf8(a.passport_canonical)).valid).toBe(false);
    });

    it('the test secret keys sign in this backend and both backends verify the result', () => {
      const dsm = domainSeparatedMessage(contextString(profile, 'Bundle'), utf8('{"n":1}'));
      const edSig = backend.sign('ed25519', b64(edKey.secret_key_b64), dsm);
      const pqSig = backend.sign('ml-dsa-65', b64(pqKey.secret_key_b64), dsm);
      expect(pqSig.length).toBe(ALGORITHM_SIZES['ml-dsa-65'].signature);
      for (const verifier of [backend, other]) {
        expect(verifier.verify('ed25519', publicKeys.classical, dsm, edSig)).toBe(true);
        expect(verifier.verify('ml-dsa-65', publicKeys.pq, dsm, pqSig)).toBe(true);
      }
    });
  });
}
