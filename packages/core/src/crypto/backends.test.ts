// Tests for both crypto backends, their selection, key encodings, kids, DSMs and key recovery.
// docs/architecture.md §2 "Crypto backends" (two implementations cross-checked), PROTOCOL §3, §4.3–4.4.

import { generateKeyPairSync } from 'node:crypto';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { describe, expect, it } from 'vitest';
import { contextString, PROFILES } from '../profile.ts';
import { ALGORITHM_SIZES, SIGNING_ALGS, type SigningAlg } from './algorithms.ts';
import { concatBytes, toHex, utf8 } from './bytes.ts';
import { domainSeparatedMessage } from './domain.ts';
import { mlDsa65KeyFromPkcs8, mlDsa65Pkcs8FromExpanded, rawFromSpki, spkiFromRaw } from './key-encoding.ts';
import { publicKeyFromSecret } from './keys.ts';
import { deriveKid } from './kid.ts';
import { createNativeBackend, probeNativeCapabilities } from './native-backend.ts';
import { createNobleBackend } from './noble-backend.ts';
import { selectCryptoBackend } from './select-backend.ts';
import { BACKENDS, otherBackend } from './test-vector-suite.ts';
import { b64 } from './test-vectors.ts';

describe('backend selection on this runtime (Node 24.21, OpenSSL 3.5)', () => {
  it('the native probe finds Ed25519, ML-DSA-65 and expanded ML-DSA secret-key import', () => {
    expect(probeNativeCapabilities()).toEqual({
      ed25519: true,
      mlDsa65: true,
      mlDsa65ExpandedSecretKeys: true,
    });
    expect(createNativeBackend().algorithms).toEqual(['ed25519', 'ml-dsa-65']);
    expect(createNobleBackend().algorithms).toEqual(['ed25519', 'ml-dsa-65']);
  });

  it('auto picks native when it has every algorithm; explicit preferences are honoured; instances are shared', () => {
    expect(selectCryptoBackend().name).toBe('native');
    expect(selectCryptoBackend('auto')).toBe(selectCryptoBackend());
    expect(selectCryptoBackend('native').name).toBe('native');
    expect(selectCryptoBackend('noble').name).toBe('noble');
    expect(selectCryptoBackend('noble')).toBe(selectCryptoBackend('noble'));
  });
});

describe('kids and domain-separated messages', () => {
  it('derives the kids PROTOCOL §4.4 lists', () => {
    expect(deriveKid('ed25519', b64('7/Tc71vBBEJc1YrhAre9RhrKj0a4SgBWv0DDMa/pcK8='))).toBe(
      'c367fd10536963d0787361552bf97e56',
    );
  });

  it('separates the algorithm id from the key with a NUL byte, so the same bytes under two algs differ', () => {
    const key = new Uint8Array(32).fill(1);
    expect(deriveKid('ed25519', key)).not.toBe(deriveKid('ml-dsa-65', key));
    expect(deriveKid('ed2551', concatBytes(utf8('9'), key))).not.toBe(deriveKid('ed25519', key));
  });

  it('builds UTF8(context) ‖ 0x00 ‖ payload with the profile contexts (PROTOCOL §3 golden prefix)', () => {
    const golden = domainSeparatedMessage(
      contextString(PROFILES['dcp-ai'], 'AgentPassport'),
      new Uint8Array(0),
    );
    expect(toHex(golden)).toBe('4443502d41492e76322e4167656e7450617373706f727400');
    const dsm = domainSeparatedMessage(contextString(PROFILES.proto, 'Bundle'), utf8('{"a":1}'));
    expect(new TextDecoder().decode(dsm)).toBe('PROTO.v2.Bundle\u0000{"a":1}');
  });
});

describe('key encodings for node:crypto', () => {
  it('reads all three ML-DSA-65 PKCS#8 private-key choices (seed, expandedKey, both)', () => {
    const pair = generateKeyPairSync('ml-dsa-65');
    const both = mlDsa65KeyFromPkcs8(
      new Uint8Array(pair.privateKey.export({ format: 'der', type: 'pkcs8' })),
    );
    expect(both?.seed?.length).toBe(32);
    expect(both?.expandedKey?.length).toBe(4032);
    // The seed expands (FIPS 204 KeyGen_internal) to the same expanded key in noble.
    expect(ml_dsa65.keygen(both!.seed!).secretKey).toEqual(both!.expandedKey);
    expect(mlDsa65KeyFromPkcs8(mlDsa65Pkcs8FromExpanded(both!.expandedKey!))).toEqual({
      expandedKey: both!.expandedKey,
    });
    const seedOnly = concatBytes(
      Uint8Array.of(0x30, 0x34, 0x02, 0x01, 0x00),
      Uint8Array.of(0x30, 0x0b, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x03, 0x12),
      Uint8Array.of(0x04, 0x22, 0x80, 0x20),
      both!.seed!,
    );
    expect(mlDsa65KeyFromPkcs8(seedOnly)).toEqual({ seed: both!.seed });
  });

  it('refuses malformed PKCS#8 and SPKI encodings instead of guessing', () => {
    const der = mlDsa65Pkcs8FromExpanded(new Uint8Array(4032));
    expect(mlDsa65KeyFromPkcs8(der.subarray(0, der.length - 1))).toBeUndefined();
    expect(mlDsa65KeyFromPkcs8(concatBytes(der, Uint8Array.of(0)))).toBeUndefined();
    const wrongOid = Uint8Array.from(der);
    wrongOid[19] = 0x11; // ML-DSA-44's OID arc
    expect(mlDsa65KeyFromPkcs8(wrongOid)).toBeUndefined();
    const spki = spkiFromRaw('ed25519', new Uint8Array(32).fill(9));
    expect(rawFromSpki('ed25519', spki)).toEqual(new Uint8Array(32).fill(9));
    expect(rawFromSpki('ml-dsa-65', spki)).toBeUndefined();
    expect(rawFromSpki('ed25519', spki.subarray(1))).toBeUndefined();
  });
});

describe('publicKeyFromSecret', () => {
  it('refuses wrong lengths and an ML-DSA-65 secret key whose tr does not match its public key', () => {
    expect(() => publicKeyFromSecret('ed25519', new Uint8Array(32))).toThrow(RangeError);
    expect(() => publicKeyFromSecret('ml-dsa-65', new Uint8Array(4031))).toThrow(RangeError);
    const { secretKey } = createNativeBackend().generateKeyPair('ml-dsa-65');
    const tampered = Uint8Array.from(secretKey);
    tampered[64] = tampered[64]! ^ 1; // inside tr
    expect(() => publicKeyFromSecret('ml-dsa-65', tampered)).toThrow(RangeError);
  });
});

describe.each(BACKENDS)('%s backend', (_name, backend) => {
  const other = otherBackend(backend);
  const message = utf8('cross-backend message');

  it.each(SIGNING_ALGS)(
    'generates %s key pairs of the protocol sizes whose public key is recoverable',
    (alg) => {
      const pair = backend.generateKeyPair(alg);
      expect(pair.alg).toBe(alg);
      expect(pair.publicKey.length).toBe(ALGORITHM_SIZES[alg].publicKey);
      expect(pair.secretKey.length).toBe(ALGORITHM_SIZES[alg].secretKey);
      expect(publicKeyFromSecret(alg, pair.secretKey)).toEqual(pair.publicKey);
      expect(deriveKid(alg, pair.publicKey)).toMatch(/^[0-9a-f]{32}$/);
      expect(backend.generateKeyPair(alg).publicKey).not.toEqual(pair.publicKey);
    },
  );

  it.each(SIGNING_ALGS)(
    '%s: its signatures verify in both backends; wrong key or message fails in both',
    (alg) => {
      const pair = backend.generateKeyPair(alg);
      const stranger = other.generateKeyPair(alg);
      const signature = backend.sign(alg, pair.secretKey, message);
      expect(signature.length).toBe(ALGORITHM_SIZES[alg].signature);
      for (const verifier of [backend, other]) {
        expect(verifier.verify(alg, pair.publicKey, message, signature)).toBe(true);
        expect(verifier.verify(alg, stranger.publicKey, message, signature)).toBe(false);
        expect(verifier.verify(alg, pair.publicKey, utf8('cross-backend messagE'), signature)).toBe(false);
      }
    },
  );

  it.each(SIGNING_ALGS)('%s: signs with keys the other backend generated', (alg) => {
    const pair = other.generateKeyPair(alg);
    const signature = backend.sign(alg, pair.secretKey, message);
    expect(other.verify(alg, pair.publicKey, message, signature)).toBe(true);
    expect(backend.verify(alg, pair.publicKey, message, signature)).toBe(true);
  });

  it('Ed25519 is deterministic and identical in both backends; ML-DSA-65 is hedged (randomised)', () => {
    const ed = backend.generateKeyPair('ed25519');
    expect(backend.sign('ed25519', ed.secretKey, message)).toEqual(
      other.sign('ed25519', ed.secretKey, message),
    );
    const pq = backend.generateKeyPair('ml-dsa-65');
    const first = backend.sign('ml-dsa-65', pq.secretKey, message);
    const second = backend.sign('ml-dsa-65', pq.secretKey, message);
    expect(first).not.toEqual(second);
    expect(other.verify('ml-dsa-65', pq.publicKey, message, second)).toBe(true);
  });

  it('verify returns false and never throws for garbage input', () => {
    const ed = backend.generateKeyPair('ed25519');
    const edSig = backend.sign('ed25519', ed.secretKey, message);
    const pq = backend.generateKeyPair('ml-dsa-65');
    const pqSig = backend.sign('ml-dsa-65', pq.secretKey, message);
    const cases: [string, unknown, unknown, unknown, unknown][] = [
      ['unknown algorithm', 'ed448', ed.publicKey, message, edSig],
      ['ML-DSA signature under ed25519', 'ed25519', ed.publicKey, message, pqSig],
      ['Ed25519 key under ml-dsa-65', 'ml-dsa-65', ed.publicKey, message, pqSig],
      ['ML-DSA signature one byte short', 'ml-dsa-65', pq.publicKey, message, pqSig.subarray(1)],
      ['ML-DSA key one byte long', 'ml-dsa-65', concatBytes(pq.publicKey, Uint8Array.of(0)), message, pqSig],
      ['all-zero ML-DSA signature', 'ml-dsa-65', pq.publicKey, message, new Uint8Array(3309)],
      ['all-ones ML-DSA signature', 'ml-dsa-65', pq.publicKey, message, new Uint8Array(3309).fill(0xff)],
      ['all-zero ML-DSA public key', 'ml-dsa-65', new Uint8Array(1952), message, pqSig],
      ['string public key', 'ed25519', 'not bytes', message, edSig],
      ['null message', 'ed25519', ed.publicKey, null, edSig],
      ['array signature', 'ed25519', ed.publicKey, message, Array.from(edSig)],
      ['Ed25519 key with y ≥ p', 'ed25519', new Uint8Array(32).fill(0xff).fill(0x7f, 31), message, edSig],
      [
        'Ed25519 key y = 2, not on the curve',
        'ed25519',
        concatBytes(Uint8Array.of(2), new Uint8Array(31)),
        message,
        edSig,
      ],
    ];
    for (const [label, alg, pk, m, sig] of cases) {
      const call = () =>
        backend.verify(alg as SigningAlg, pk as Uint8Array, m as Uint8Array, sig as Uint8Array);
      expect(call, label).not.toThrow();
      expect(call(), label).toBe(false);
    }
  });

  it('sign refuses a secret key of the wrong length or an Ed25519 key whose public half is foreign', () => {
    const ed = backend.generateKeyPair('ed25519');
    const foreign = backend.generateKeyPair('ed25519');
    expect(() => backend.sign('ed25519', ed.secretKey.subarray(0, 32), message)).toThrow(RangeError);
    expect(() => backend.sign('ml-dsa-65', new Uint8Array(4000), message)).toThrow(RangeError);
    const mixed = concatBytes(ed.secretKey.subarray(0, 32), foreign.publicKey);
    expect(() => backend.sign('ed25519', mixed, message)).toThrow(/public half/);
  });
});
