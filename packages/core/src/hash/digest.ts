// SHA-256 and SHA3-256 (FIPS 202, not Keccak-256): the two hash families of the protocol.
// PROTOCOL §2.1 (formats, goldens), DECISIONS D3.
import { hash } from 'node:crypto';

export type HashAlg = 'sha256' | 'sha3-256';

/** Primary family first; the names double as node:crypto algorithm names and as the `<alg>:` prefix. */
export const HASH_ALGS: readonly HashAlg[] = Object.freeze(['sha256', 'sha3-256'] as const);

export function isHashAlg(value: unknown): value is HashAlg {
  return value === 'sha256' || value === 'sha3-256';
}

function requireHashAlg(alg: HashAlg): void {
  if (!isHashAlg(alg)) throw new TypeError(`unsupported hash algorithm: ${String(alg)}`);
}

/**
 * Digest of bytes, or of the UTF-8 bytes of a string. An `alg` outside HashAlg can only come from
 * code that bypassed the type checker, so it throws a TypeError (a programmer error, not bad input).
 *
 * node:crypto's one-shot `hash()` (Node ≥ 21.7 and 20.12; Node 24 is pinned) skips the Hash
 * object. Its `binary` (latin1) output is one character per digest byte, and copying 32 characters
 * into a small Uint8Array is cheaper than the Buffer (external ArrayBuffer) `buffer` output allocates.
 * A string is hashed as UTF-8, a lone surrogate as U+FFFD, exactly as TextEncoder encodes it.
 */
export function digest(alg: HashAlg, data: Uint8Array | string): Uint8Array {
  requireHashAlg(alg);
  const text = hash(alg, data, 'binary');
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}

/** Room for two SHA-256/SHA3-256 digests: a Merkle node's input, written in place of a new array. */
const PAIR = new Uint8Array(64);

/**
 * Digest of `left ‖ right` (a Merkle node: H(left ‖ right)) without allocating their concatenation:
 * both are copied into one reused buffer, hashed at once (the call is synchronous, nothing else can
 * write the buffer meanwhile). Inputs longer than two digests fall back to a fresh array.
 */
export function digestPair(alg: HashAlg, left: Uint8Array, right: Uint8Array): Uint8Array {
  const length = left.byteLength + right.byteLength;
  if (length > PAIR.byteLength) {
    const joined = new Uint8Array(length);
    joined.set(left);
    joined.set(right, left.byteLength);
    return digest(alg, joined);
  }
  PAIR.set(left);
  PAIR.set(right, left.byteLength);
  return digest(alg, length === PAIR.byteLength ? PAIR : PAIR.subarray(0, length));
}

/** Lowercase hex digest (PROTOCOL §2.1: all hex is lowercase), straight from the one-shot hash. */
export function hexDigest(alg: HashAlg, data: Uint8Array | string): string {
  requireHashAlg(alg);
  return hash(alg, data, 'hex');
}
