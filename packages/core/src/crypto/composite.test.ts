// Tests for composite signatures: strict parsing, signing layout, and per-half verification verdicts.
// PROTOCOL §4.1–4.2, DECISIONS D8 (strict base64 and lengths first), D9 (stripping always fails).

import { describe, expect, it } from 'vitest';
import { contextString, PROFILES } from '../profile.ts';
import type { CryptoBackend } from './backend.ts';
import { concatBytes, decodeBase64Strict, encodeBase64, utf8 } from './bytes.ts';
import {
  type CompositeSignature,
  compositeSign,
  compositeVerify,
  parseCompositeSignature,
  type SigningKey,
} from './composite.ts';
import { domainSeparatedMessage } from './domain.ts';
import { deriveKid } from './kid.ts';
import { createNativeBackend } from './native-backend.ts';
import { BACKENDS, otherBackend, verdict } from './test-vector-suite.ts';
import { tamperFirstByte } from './test-vectors.ts';

const native = createNativeBackend();
const edPair = native.generateKeyPair('ed25519');
const pqPair = native.generateKeyPair('ml-dsa-65');
const classicalKey: SigningKey = {
  alg: 'ed25519',
  kid: deriveKid('ed25519', edPair.publicKey),
  secretKey: edPair.secretKey,
};
const pqKey: SigningKey = {
  alg: 'ml-dsa-65',
  kid: deriveKid('ml-dsa-65', pqPair.publicKey),
  secretKey: pqPair.secretKey,
};
const publicKeys = { classical: edPair.publicKey, pq: pqPair.publicKey };
const CONTEXT = contextString(PROFILES.proto, 'Intent');
const PAYLOAD = utf8('{"action_type":"send_email","intent_id":"i-1"}');
const hybrid = compositeSign(native, { classical: classicalKey, pq: pqKey }, CONTEXT, PAYLOAD);
const classicalOnly = compositeSign(native, { classical: classicalKey }, CONTEXT, PAYLOAD);

describe('parseCompositeSignature', () => {
  it('accepts both wire shapes and returns a frozen copy', () => {
    const json = JSON.parse(JSON.stringify(hybrid)) as unknown;
    const parsed = parseCompositeSignature(json);
    expect(parsed).toEqual({ ok: true, value: hybrid });
    expect(parsed.ok && Object.isFrozen(parsed.value)).toBe(true);
    expect(parseCompositeSignature(JSON.parse(JSON.stringify(classicalOnly)))).toEqual({
      ok: true,
      value: classicalOnly,
    });
  });

  const base = JSON.parse(JSON.stringify(hybrid)) as Record<string, unknown>;
  const half = base['classical'] as Record<string, unknown>;
  it.each([
    ['not an object', 'composite'],
    ['null', null],
    ['an array', [hybrid.classical, hybrid.pq, hybrid.binding]],
    ['an extra member', { ...base, independent: true }],
    ['pq missing (must be present, null allowed)', { classical: half, binding: 'classical_only' }],
    ['pq undefined', { ...base, pq: undefined }],
    ['classical null', { ...base, classical: null }],
    ['a half with an extra member', { ...base, classical: { ...half, public_key_b64: 'AAAA' } }],
    ['a half without kid', { ...base, classical: { alg: half['alg'], sig_b64: half['sig_b64'] } }],
    ['an uppercase kid', { ...base, classical: { ...half, kid: String(half['kid']).toUpperCase() } }],
    ['a 31-character kid', { ...base, classical: { ...half, kid: String(half['kid']).slice(1) } }],
    ['a numeric sig_b64', { ...base, classical: { ...half, sig_b64: 12 } }],
    ['an empty alg', { ...base, classical: { ...half, alg: '' } }],
    ['a non-string binding', { ...base, binding: 1 }],
  ])('refuses %s as BUNDLE_SCHEMA_INVALID', (_name, value) => {
    const parsed = parseCompositeSignature(value);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error.code).toBe('BUNDLE_SCHEMA_INVALID');
  });

  it.each(['independent', 'PQ_OVER_CLASSICAL', ''])(
    'refuses binding "%s" as COMPOSITE_BINDING_INVALID',
    (binding) => {
      const parsed = parseCompositeSignature({ ...base, binding });
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.error.code).toBe('COMPOSITE_BINDING_INVALID');
    },
  );
});

describe('compositeSign', () => {
  it('pq_over_classical: classical signs the DSM, ML-DSA signs DSM ‖ the raw classical signature', () => {
    expect(hybrid.binding).toBe('pq_over_classical');
    expect(hybrid.classical).toMatchObject({ alg: 'ed25519', kid: classicalKey.kid });
    expect(hybrid.pq).toMatchObject({ alg: 'ml-dsa-65', kid: pqKey.kid });
    const dsm = domainSeparatedMessage(CONTEXT, PAYLOAD);
    const classicalSig = decodeBase64Strict(hybrid.classical.sig_b64)!;
    const pqSig = decodeBase64Strict(hybrid.pq!.sig_b64)!;
    expect(native.verify('ed25519', edPair.publicKey, dsm, classicalSig)).toBe(true);
    expect(native.verify('ml-dsa-65', pqPair.publicKey, concatBytes(dsm, classicalSig), pqSig)).toBe(true);
    expect(native.verify('ml-dsa-65', pqPair.publicKey, dsm, pqSig)).toBe(false);
  });

  it('classical_only without a PQ key: pq is null and the classical half is the same deterministic signature', () => {
    expect(classicalOnly).toEqual({ classical: hybrid.classical, pq: null, binding: 'classical_only' });
  });

  it('refuses keys in the wrong role or with a malformed kid rather than emit an unverifiable signature', () => {
    expect(() => compositeSign(native, { classical: pqKey }, CONTEXT, PAYLOAD)).toThrow(TypeError);
    expect(() =>
      compositeSign(native, { classical: classicalKey, pq: classicalKey }, CONTEXT, PAYLOAD),
    ).toThrow(TypeError);
    expect(() =>
      compositeSign(native, { classical: { ...classicalKey, kid: 'ABC' } }, CONTEXT, PAYLOAD),
    ).toThrow(TypeError);
  });
});

function withHalf(
  sig: CompositeSignature,
  role: 'classical' | 'pq',
  patch: Partial<CompositeSignature['classical']>,
) {
  if (role === 'classical') return { ...sig, classical: { ...sig.classical, ...patch } };
  return { ...sig, pq: { ...sig.pq!, ...patch } };
}

describe.each(BACKENDS)('compositeVerify: %s backend', (_name, backend) => {
  const other = otherBackend(backend);
  /** Verdict in this backend, asserted identical in the other one. */
  const check = (
    sig: CompositeSignature,
    keys: { classical?: Uint8Array; pq?: Uint8Array } = publicKeys,
    context = CONTEXT,
    payload = PAYLOAD,
    using: CryptoBackend = backend,
  ) => {
    const result = compositeVerify(using, sig, keys, context, payload);
    expect(result.valid).toBe(result.errors.length === 0);
    if (using === backend)
      expect(verdict(compositeVerify(other, sig, keys, context, payload))).toEqual(verdict(result));
    return result;
  };

  it('passes an honest hybrid and an honest classical-only signature', () => {
    expect(verdict(check(hybrid))).toEqual({ valid: true, classical: 'pass', pq: 'pass', codes: [] });
    expect(verdict(check(classicalOnly))).toEqual({
      valid: true,
      classical: 'pass',
      pq: 'absent',
      codes: [],
    });
  });

  it('fails a different payload or context in both halves', () => {
    const both = {
      valid: false,
      classical: 'fail',
      pq: 'fail',
      codes: ['CLASSICAL_SIG_INVALID', 'PQ_SIG_INVALID'],
    };
    expect(
      verdict(check(hybrid, publicKeys, CONTEXT, utf8('{"action_type":"send_email","intent_id":"i-2"}'))),
    ).toEqual(both);
    expect(verdict(check(hybrid, publicKeys, contextString(PROFILES['dcp-ai'], 'Intent')))).toEqual(both);
  });

  it('stripping (pq_over_classical with pq null) evaluates classical, reports pq absent, and is never valid', () => {
    const result = check({ ...hybrid, pq: null });
    expect(verdict(result)).toEqual({
      valid: false,
      classical: 'pass',
      pq: 'absent',
      codes: ['COMPOSITE_BINDING_INVALID'],
    });
  });

  it('classical_only carrying a PQ half is a binding error, never valid', () => {
    expect(verdict(check({ ...hybrid, binding: 'classical_only' }))).toEqual({
      valid: false,
      classical: 'pass',
      pq: 'fail',
      codes: ['COMPOSITE_BINDING_INVALID'],
    });
  });

  it('an unknown binding that bypassed parsing is a binding error', () => {
    const sig = { ...hybrid, binding: 'independent' } as unknown as CompositeSignature;
    expect(verdict(check(sig))).toMatchObject({ valid: false, codes: ['COMPOSITE_BINDING_INVALID'] });
  });

  it('a missing public key fails that half with KID_MISMATCH naming the kid', () => {
    const noPq = check(hybrid, { classical: edPair.publicKey });
    expect(verdict(noPq)).toEqual({ valid: false, classical: 'pass', pq: 'fail', codes: ['KID_MISMATCH'] });
    expect(noPq.errors[0]?.message).toBe(`no public key for kid ${pqKey.kid}`);
    const noClassical = check(hybrid, { pq: pqPair.publicKey });
    expect(verdict(noClassical)).toEqual({
      valid: false,
      classical: 'fail',
      pq: 'pass',
      codes: ['KID_MISMATCH'],
    });
    expect(noClassical.errors[0]?.message).toBe(`no public key for kid ${classicalKey.kid}`);
  });

  it('a public key of the wrong length fails its half before any crypto', () => {
    const result = check(hybrid, { classical: pqPair.publicKey, pq: edPair.publicKey });
    expect(verdict(result)).toEqual({
      valid: false,
      classical: 'fail',
      pq: 'fail',
      codes: ['CLASSICAL_SIG_INVALID', 'PQ_SIG_INVALID'],
    });
  });

  const classicalB64 = hybrid.classical.sig_b64;
  const pqB64 = hybrid.pq!.sig_b64;
  it.each([
    // A random signature may hold no '+' or '/': then put a URL-safe '-' in place of its first character.
    [
      'URL-safe alphabet',
      (s: string) => (/[+/]/.test(s) ? s.replaceAll('+', '-').replaceAll('/', '_') : `-${s.slice(1)}`),
    ],
    ['missing padding', (s: string) => s.replace(/=+$/, '')],
    ['a trailing newline', (s: string) => `${s}\n`],
    ['a space inside', (s: string) => `${s.slice(0, 8)} ${s.slice(8)}`],
  ])('a classical sig_b64 with %s fails classical, and the PQ half that covers it', (_label, mangle) => {
    const mangled = mangle(classicalB64);
    expect(mangled).not.toBe(classicalB64);
    const result = check(withHalf(hybrid, 'classical', { sig_b64: mangled }));
    expect(verdict(result)).toEqual({
      valid: false,
      classical: 'fail',
      pq: 'fail',
      codes: ['CLASSICAL_SIG_INVALID', 'PQ_SIG_INVALID'],
    });
  });

  it.each([
    [
      'URL-safe alphabet',
      /[+/]/.test(pqB64) ? pqB64.replaceAll('+', '-').replaceAll('/', '_') : `_${pqB64.slice(1)}`,
    ],
    ['a stray padding group', `${pqB64}====`],
    ['a dropped final group', pqB64.slice(0, -4)],
    ['a line break', `${pqB64.slice(0, 76)}\n${pqB64.slice(76)}`],
  ])('a pq sig_b64 with %s fails only the PQ half', (_label, mangled) => {
    expect(mangled).not.toBe(pqB64);
    expect(verdict(check(withHalf(hybrid, 'pq', { sig_b64: mangled })))).toEqual({
      valid: false,
      classical: 'pass',
      pq: 'fail',
      codes: ['PQ_SIG_INVALID'],
    });
  });

  it('signatures one byte short or long fail their half with the expected length in the message', () => {
    const short = encodeBase64(decodeBase64Strict(classicalB64)!.subarray(1));
    const result = check(withHalf(classicalOnly, 'classical', { sig_b64: short }));
    expect(verdict(result)).toEqual({
      valid: false,
      classical: 'fail',
      pq: 'absent',
      codes: ['CLASSICAL_SIG_INVALID'],
    });
    expect(result.errors[0]?.message).toMatch(/64 bytes, got 63/);
    const long = encodeBase64(concatBytes(decodeBase64Strict(pqB64)!, Uint8Array.of(0)));
    expect(verdict(check(withHalf(hybrid, 'pq', { sig_b64: long })))).toMatchObject({
      classical: 'pass',
      pq: 'fail',
      codes: ['PQ_SIG_INVALID'],
    });
  });

  it('tampering either half fails exactly what PROTOCOL §4.2 says', () => {
    expect(verdict(check(withHalf(hybrid, 'classical', { sig_b64: tamperFirstByte(classicalB64) })))).toEqual(
      {
        valid: false,
        classical: 'fail',
        pq: 'fail',
        codes: ['CLASSICAL_SIG_INVALID', 'PQ_SIG_INVALID'],
      },
    );
    expect(verdict(check(withHalf(hybrid, 'pq', { sig_b64: tamperFirstByte(pqB64) })))).toEqual({
      valid: false,
      classical: 'pass',
      pq: 'fail',
      codes: ['PQ_SIG_INVALID'],
    });
  });

  it('an algorithm other than ed25519 / ml-dsa-65 in its role is ALGORITHM_UNAVAILABLE', () => {
    expect(verdict(check(withHalf(hybrid, 'classical', { alg: 'ed448' })))).toEqual({
      valid: false,
      classical: 'fail',
      pq: 'pass',
      codes: ['ALGORITHM_UNAVAILABLE'],
    });
    expect(verdict(check(withHalf(hybrid, 'pq', { alg: 'ml-dsa-87' })))).toEqual({
      valid: false,
      classical: 'pass',
      pq: 'fail',
      codes: ['ALGORITHM_UNAVAILABLE'],
    });
    expect(verdict(check(withHalf(hybrid, 'classical', { alg: 'ml-dsa-65' })))).toMatchObject({
      classical: 'fail',
      codes: ['ALGORITHM_UNAVAILABLE'],
    });
  });

  it('an algorithm the backend lacks (a runtime without native ML-DSA) is ALGORITHM_UNAVAILABLE', () => {
    // Models Node < 24.6: the real backend restricted to what such a runtime's probe reports.
    const classicalOnlyRuntime: CryptoBackend = { ...backend, algorithms: ['ed25519'] };
    const result = compositeVerify(classicalOnlyRuntime, hybrid, publicKeys, CONTEXT, PAYLOAD);
    expect(verdict(result)).toEqual({
      valid: false,
      classical: 'pass',
      pq: 'fail',
      codes: ['ALGORITHM_UNAVAILABLE'],
    });
    expect(compositeVerify(classicalOnlyRuntime, classicalOnly, publicKeys, CONTEXT, PAYLOAD).valid).toBe(
      true,
    );
  });

  it('never throws on malformed input', () => {
    const garbage: unknown[] = [
      null,
      undefined,
      'sig',
      [],
      {},
      { classical: null, pq: null, binding: 'classical_only' },
    ];
    for (const value of garbage) {
      const result = compositeVerify(backend, value as CompositeSignature, publicKeys, CONTEXT, PAYLOAD);
      expect(result.valid).toBe(false);
      expect(result.errors.map((e) => e.code)).toEqual(['BUNDLE_SCHEMA_INVALID']);
    }
    const notBytes = compositeVerify(
      backend,
      hybrid,
      publicKeys,
      CONTEXT,
      'payload' as unknown as Uint8Array,
    );
    expect(notBytes.valid).toBe(false);
    const noKeys = compositeVerify(
      backend,
      hybrid,
      undefined as unknown as { classical?: Uint8Array },
      CONTEXT,
      PAYLOAD,
    );
    expect(verdict(noKeys)).toEqual({
      valid: false,
      classical: 'fail',
      pq: 'fail',
      codes: ['KID_MISMATCH', 'KID_MISMATCH'],
    });
  });
});
