// The signing algorithms this stack implements, with their exact key and signature sizes.
// PROTOCOL §4.3 (alg ids, raw encodings, sizes), DECISIONS D8 (exact lengths before any crypto).

/** Registry ids (lowercase, as they appear in `alg` and in kid derivation). Same in both profiles. */
export type SigningAlg = 'ed25519' | 'ml-dsa-65';

export const SIGNING_ALGS: readonly SigningAlg[] = Object.freeze(['ed25519', 'ml-dsa-65'] as const);

/**
 * Raw sizes in bytes. Ed25519 secret key = 32-byte seed ‖ 32-byte public key (tweetnacl layout, as
 * the SDKs serialise it); ML-DSA-65 secret key = the FIPS 204 expanded key (ρ ‖ K ‖ tr ‖ s1 ‖ s2 ‖ t0).
 */
export const ALGORITHM_SIZES: Readonly<
  Record<SigningAlg, { readonly publicKey: number; readonly signature: number; readonly secretKey: number }>
> = Object.freeze({
  ed25519: Object.freeze({ publicKey: 32, signature: 64, secretKey: 64 }),
  'ml-dsa-65': Object.freeze({ publicKey: 1952, signature: 3309, secretKey: 4032 }),
});

export function isSigningAlg(value: unknown): value is SigningAlg {
  return value === 'ed25519' || value === 'ml-dsa-65';
}

/** The role each algorithm plays in a composite signature (PROTOCOL §4.1–4.2). */
export const CLASSICAL_ALG: SigningAlg = 'ed25519';
export const PQ_ALG: SigningAlg = 'ml-dsa-65';
