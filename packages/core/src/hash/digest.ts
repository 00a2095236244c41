// SHA-256 and SHA3-256 (FIPS 202, not Keccak-256): the two hash families of the protocol.
// PROTOCOL §2.1 (formats, goldens), DECISIONS D3.
import { createHash } from 'node:crypto';
import { toHex, utf8Encode } from '../encoding/index.ts';

export type HashAlg = 'sha256' | 'sha3-256';

/** Primary family first; the names double as node:crypto algorithm names and as the `<alg>:` prefix. */
export const HASH_ALGS: readonly HashAlg[] = Object.freeze(['sha256', 'sha3-256'] as const);

export function isHashAlg(value: unknown): value is HashAlg {
  return value === 'sha256' || value === 'sha3-256';
}

/**
 * Digest of bytes, or of the UTF-8 bytes of a string. An `alg` outside HashAlg can only come from
 * code that bypassed the type checker, so it throws a TypeError (a programmer error, not bad input).
 */
export function digest(alg: HashAlg, data: Uint8Array | string): Uint8Array {
  if (!isHashAlg(alg)) throw new TypeError(`unsupported hash algorithm: ${String(alg)}`);
  const bytes = typeof data === 'string' ? utf8Encode(data) : data;
  return new Uint8Array(createHash(alg).update(bytes).digest());
}

/** Lowercase hex digest (PROTOCOL §2.1: all hex is lowercase). */
export function hexDigest(alg: HashAlg, data: Uint8Array | string): string {
  return toHex(digest(alg, data));
}
