// Runs the shared upstream vectors (interop, RFC 8032, ML-DSA-65 properties) through both backends.
// PROTOCOL §3, §4, §11–12 (interop_vectors.json, nist-kat), DECISIONS D1 (dcp-ai profile contexts).

import { describe, expect, it } from 'vitest';
import { PROFILES } from '../profile.ts';
import { ALGORITHM_SIZES } from './algorithms.ts';
import { concatBytes, toHex, utf8 } from './bytes.ts';
import { deriveKid } from './kid.ts';
import {
  HAS_SHARED_VECTORS,
  INTEROP_VECTORS_PATH,
  NIST_ED25519_PATH,
  NIST_ML_DSA_65_PATH,
  type NistEd25519File,
  type NistMlDsa65File,
  readSharedJson,
} from './shared-vectors.ts';
import { BACKENDS, otherBackend, registerCryptoVectorSuite } from './test-vector-suite.ts';
import { type CryptoVectorFile, hexToBytes } from './test-vectors.ts';

describe.skipIf(!HAS_SHARED_VECTORS)('shared vectors (../shared/vectors)', () => {
  if (!HAS_SHARED_VECTORS) {
    it('are absent in this checkout', () => {});
    return;
  }
  const interop = readSharedJson<CryptoVectorFile>(INTEROP_VECTORS_PATH);
  const rfc8032 = readSharedJson<NistEd25519File>(NIST_ED25519_PATH);
  const mlDsa = readSharedJson<NistMlDsa65File>(NIST_ML_DSA_65_PATH);

  // The upstream bytes are DCP-AI.v2.* contexts: the dcp-ai profile (D1).
  registerCryptoVectorSuite('interop_vectors.json', interop, PROFILES['dcp-ai']);

  describe.each(BACKENDS)('nist-kat/ed25519 (RFC 8032 §7.1): %s backend', (_name, backend) => {
    it.each(rfc8032.test_vectors.map((v) => [v.name, v] as const))('%s', (_n, v) => {
      const seed = hexToBytes(v.secret_key_hex);
      const publicKey = hexToBytes(v.public_key_hex);
      const message = hexToBytes(v.message_hex);
      // The SDK secret-key layout is seed ‖ public key; signing from the RFC seed gives the RFC signature.
      expect(toHex(backend.sign('ed25519', concatBytes(seed, publicKey), message))).toBe(v.signature_hex);
      const signature = hexToBytes(v.signature_hex);
      expect(backend.verify('ed25519', publicKey, message, signature)).toBe(true);
      expect(otherBackend(backend).verify('ed25519', publicKey, message, signature)).toBe(true);
      expect(backend.verify('ed25519', publicKey, concatBytes(message, Uint8Array.of(0)), signature)).toBe(
        false,
      );
    });
  });

  describe.each(BACKENDS)('nist-kat/ml-dsa-65 properties: %s backend', (_name, backend) => {
    const props = mlDsa.properties;
    const other = otherBackend(backend);

    it('keygen_sizes and deterministic_kid', () => {
      expect(props.algorithm).toBe('ml-dsa-65');
      const pair = backend.generateKeyPair('ml-dsa-65');
      expect(pair.publicKey.length).toBe(props.public_key_size);
      expect(pair.secretKey.length).toBe(props.secret_key_size);
      expect(ALGORITHM_SIZES['ml-dsa-65']).toEqual({
        publicKey: props.public_key_size,
        signature: props.signature_size,
        secretKey: props.secret_key_size,
      });
      const kid = deriveKid('ml-dsa-65', pair.publicKey);
      expect(kid.length).toBe(props.kid_length);
      expect(deriveKid('ml-dsa-65', Uint8Array.from(pair.publicKey))).toBe(kid);
    });

    it('sign_verify_roundtrip, wrong_key_rejection and wrong_message_rejection, in both backends', () => {
      const a = backend.generateKeyPair('ml-dsa-65');
      const b = backend.generateKeyPair('ml-dsa-65');
      const message = utf8('ml-dsa-65 property test');
      const signature = backend.sign('ml-dsa-65', a.secretKey, message);
      expect(signature.length).toBe(props.signature_size);
      for (const verifier of [backend, other]) {
        expect(verifier.verify('ml-dsa-65', a.publicKey, message, signature)).toBe(true);
        expect(verifier.verify('ml-dsa-65', b.publicKey, message, signature)).toBe(false);
        expect(verifier.verify('ml-dsa-65', a.publicKey, utf8('ml-dsa-65 property tesT'), signature)).toBe(
          false,
        );
      }
    });
  });
});
