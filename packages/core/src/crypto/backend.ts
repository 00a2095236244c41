// The crypto backend interface shared by the node:crypto and @noble implementations.
// docs/architecture.md §2 "Crypto backends" (one interface, two implementations), PROTOCOL §4.3 (algorithms).

import type { SigningAlg } from './algorithms.ts';

export interface KeyPair {
  readonly alg: SigningAlg;
  /** Raw public key (32 bytes Ed25519, 1952 bytes ML-DSA-65). */
  readonly publicKey: Uint8Array;
  /** Secret key in the SDK layout: Ed25519 seed ‖ public key (64), ML-DSA-65 FIPS 204 expanded key (4032). */
  readonly secretKey: Uint8Array;
}

export interface CryptoBackend {
  readonly name: 'native' | 'noble';
  /** The algorithms this backend really supports in this runtime. */
  readonly algorithms: readonly SigningAlg[];
  /**
   * Verifies a raw signature. Never throws: false for an unsupported algorithm, wrong lengths, a
   * bad key, a signature outside the pinned Ed25519 rule (ed25519-strict.ts), or any failure.
   * ML-DSA-65 is FIPS 204 pure mode with the empty context; Ed25519 is RFC 8032 pure Ed25519.
   */
  verify(alg: SigningAlg, publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean;
  /**
   * Signs with a secret key in the SDK layout. ML-DSA-65 signing is hedged (randomised), pure
   * mode, empty context; Ed25519 is deterministic. Throws on programmer errors only: an algorithm
   * the backend lacks, a secret key of the wrong length, or an Ed25519 secret key whose public
   * half does not belong to its seed.
   */
  sign(alg: SigningAlg, secretKey: Uint8Array, message: Uint8Array): Uint8Array;
  /** Fresh random key pair. Throws only for an algorithm the backend lacks. */
  generateKeyPair(alg: SigningAlg): KeyPair;
}
