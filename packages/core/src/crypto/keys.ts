// Public keys recovered from SDK-layout secret keys (Ed25519 seed ‖ pk, ML-DSA-65 FIPS 204 expanded key).
// PROTOCOL §4.3 (secret key layouts), FIPS 204 §7.2 (skEncode: ρ ‖ K ‖ tr ‖ s1 ‖ s2 ‖ t0).

import { shake256 } from '@noble/hashes/sha3.js';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { ALGORITHM_SIZES, type SigningAlg } from './algorithms.ts';
import { bytesEqual, isBytes } from './bytes.ts';

/**
 * Ed25519: the last 32 bytes (tweetnacl layout; both backends refuse to sign when that half does
 * not belong to the seed). ML-DSA-65: the expanded key does not contain t1, so it is recomputed
 * (t = A·s1 + s2, t1 = Power2Round(t).high; ρ comes from the key) by @noble/post-quantum's
 * getPublicKey, then checked against the key's own tr = SHAKE256(pk, 64 bytes) (FIPS 204 KeyGen),
 * which proves the result belongs to this secret key. Throws RangeError on a wrong length or an
 * inconsistent ML-DSA key (these are the caller's own keys, not verification input).
 */
export function publicKeyFromSecret(alg: SigningAlg, secretKey: Uint8Array): Uint8Array {
  const sizes = ALGORITHM_SIZES[alg];
  if (sizes === undefined) throw new RangeError(`unknown algorithm ${String(alg)}`);
  if (!isBytes(secretKey) || secretKey.length !== sizes.secretKey) {
    throw new RangeError(`${alg} secret key must be ${sizes.secretKey} bytes`);
  }
  if (alg === 'ed25519') return Uint8Array.from(secretKey.subarray(32, 64));
  const publicKey = ml_dsa65.getPublicKey(secretKey);
  const tr = secretKey.subarray(64, 128);
  if (!bytesEqual(shake256(publicKey, { dkLen: 64 }), tr)) {
    throw new RangeError('ml-dsa-65 secret key is inconsistent (tr does not match the derived public key)');
  }
  return publicKey;
}
