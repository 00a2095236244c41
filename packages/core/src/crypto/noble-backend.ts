// The portable backend: @noble/ed25519, @noble/post-quantum (ML-DSA-65) and @noble/hashes.
// docs/architecture.md §2 "Crypto backends" (used where the runtime lacks native ML-DSA), PROTOCOL §4.3.

import * as ed from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { ALGORITHM_SIZES, isSigningAlg, SIGNING_ALGS, type SigningAlg } from './algorithms.ts';
import type { CryptoBackend, KeyPair } from './backend.ts';
import { bytesEqual, bytesToBigIntLE, concatBytes, isBytes } from './bytes.ts';
import { ED25519_L, ed25519Precheck } from './ed25519-strict.ts';

// @noble/ed25519's synchronous API needs a SHA-512 provider; @noble/hashes is the audited one.
ed.hashes.sha512 = sha512;

/**
 * Cofactorless RFC 8032 verification: accept iff encode([S]B − [k]A) equals the R bytes, with
 * k = SHA-512(R ‖ A ‖ M) mod L. This is the equation OpenSSL, libsodium, Go and tweetnacl use.
 * `ed.verify(…, { zip215: false })` evaluates the cofactored equation instead and accepts
 * signatures whose R (or A) carries a small-order component, which OpenSSL rejects: calling it
 * would make the two backends disagree (ed25519-strict.ts has the measurements). The group
 * arithmetic is still noble's; only the final comparison is chosen here. The caller has already
 * run ed25519Precheck (canonical S < L, canonical non-small-order A and R).
 */
function ed25519VerifyCofactorless(
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
): boolean {
  const r = signature.subarray(0, 32);
  const s = bytesToBigIntLE(signature.subarray(32, 64));
  const a = ed.Point.fromBytes(publicKey, false); // strict decoding: y < p, valid point
  const k = bytesToBigIntLE(sha512(concatBytes(r, publicKey, message))) % ED25519_L;
  const check = ed.Point.BASE.multiply(s, false).subtract(a.multiply(k, false));
  return bytesEqual(check.toBytes(), r);
}

function checkSecretKey(alg: SigningAlg, secretKey: Uint8Array): void {
  if (!isBytes(secretKey) || secretKey.length !== ALGORITHM_SIZES[alg].secretKey) {
    throw new RangeError(`${alg} secret key must be ${ALGORITHM_SIZES[alg].secretKey} bytes`);
  }
}

export function createNobleBackend(): CryptoBackend {
  const algorithms: readonly SigningAlg[] = Object.freeze([...SIGNING_ALGS]);

  return Object.freeze({
    name: 'noble' as const,
    algorithms,

    verify(alg: SigningAlg, publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
      try {
        if (!isSigningAlg(alg) || !isBytes(publicKey) || !isBytes(message) || !isBytes(signature))
          return false;
        const sizes = ALGORITHM_SIZES[alg];
        if (publicKey.length !== sizes.publicKey || signature.length !== sizes.signature) return false;
        if (alg === 'ed25519') {
          return (
            ed25519Precheck(publicKey, signature) && ed25519VerifyCofactorless(publicKey, message, signature)
          );
        }
        // FIPS 204 ML-DSA.Verify, pure mode; no options = the empty context string.
        return ml_dsa65.verify(signature, message, publicKey);
      } catch {
        return false;
      }
    },

    sign(alg: SigningAlg, secretKey: Uint8Array, message: Uint8Array): Uint8Array {
      if (!isSigningAlg(alg))
        throw new Error(`algorithm ${String(alg)} is not available in the noble backend`);
      checkSecretKey(alg, secretKey);
      if (alg === 'ed25519') {
        const seed = secretKey.subarray(0, 32);
        // Same rule as the native backend: the stored public half must belong to the seed.
        if (!bytesEqual(ed.getPublicKey(seed), secretKey.subarray(32, 64))) {
          throw new Error('ed25519 secret key: the public half does not belong to the seed');
        }
        return ed.sign(message, seed);
      }
      // FIPS 204 ML-DSA.Sign, pure mode, empty context; noble hedges by default (fresh 32-byte rnd).
      return ml_dsa65.sign(message, secretKey);
    },

    generateKeyPair(alg: SigningAlg): KeyPair {
      if (!isSigningAlg(alg))
        throw new Error(`algorithm ${String(alg)} is not available in the noble backend`);
      if (alg === 'ed25519') {
        const { secretKey: seed, publicKey } = ed.keygen();
        return Object.freeze({ alg, publicKey, secretKey: concatBytes(seed, publicKey) });
      }
      const { publicKey, secretKey } = ml_dsa65.keygen();
      return Object.freeze({ alg, publicKey, secretKey });
    },
  });
}
