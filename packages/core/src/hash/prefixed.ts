// The two spellings of a digest: prefixed `sha256:<hex>` / `sha3-256:<hex>` (V2) and bare hex (V1 chains, logs).
// PROTOCOL §2.1 (which field uses which form), DECISIONS D3 (V1 bare, V2 prefixed, lowercase only).
import type { HashAlg } from './digest.ts';

const PREFIXED = /^(sha256|sha3-256):([0-9a-f]{64})$/;
const BARE_HEX64 = /^[0-9a-f]{64}$/;

export function prefixedHash(alg: HashAlg, hex: string): string {
  return `${alg}:${hex}`;
}

/**
 * Splits `sha256:<64 lowercase hex>` or `sha3-256:<64 lowercase hex>`; anything else (uppercase,
 * other prefixes, bare hex, whitespace, wrong length, non-strings) is undefined. With `expected`,
 * a value of the other family is undefined too.
 */
export function parsePrefixedHash(
  value: unknown,
  expected?: HashAlg,
): { alg: HashAlg; hex: string } | undefined {
  if (typeof value !== 'string') return undefined;
  const match = PREFIXED.exec(value);
  if (match === null) return undefined;
  const alg = match[1] as HashAlg;
  const hex = match[2] as string;
  if (expected !== undefined && alg !== expected) return undefined;
  return { alg, hex };
}

/** Exactly 64 lowercase hex characters, no prefix: a V1 chain value or a log hash. */
export function isBareHex64(value: unknown): value is string {
  return typeof value === 'string' && BARE_HEX64.test(value);
}
