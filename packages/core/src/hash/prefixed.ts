// The two spellings of a digest: prefixed `sha256:<hex>` / `sha3-256:<hex>` (V2) and bare hex (V1 chains, logs).
// PROTOCOL §2.1 (which field uses which form), DECISIONS D3 (V1 bare, V2 prefixed, lowercase only).
import type { HashAlg } from './digest.ts';

const PREFIXED = /^(sha256|sha3-256):([0-9a-f]{64})$/;
const BARE_HEX64 = /^[0-9a-f]{64}$/;

export function prefixedHash(alg: HashAlg, hex: string): string {
  return `${alg}:${hex}`;
}

/** Char codes of the lowercase hex digits, by nibble. */
const HEX_CODES = Uint8Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0));
const COLON = 0x3a;

/**
 * `value === prefixedHash(alg, toHex(digest))` without writing that text: a checkpoint compares four
 * computed digests with the ones it states, and the hex and prefixed strings built only to be compared
 * were a tenth of what its check allocated (P133). Character by character, lowercase only, as the
 * string comparison is.
 */
export function isPrefixedHashOf(value: unknown, alg: HashAlg, digest: Uint8Array): boolean {
  const prefix = alg.length;
  if (typeof value !== 'string' || value.length !== prefix + 1 + 2 * digest.length) return false;
  if (!value.startsWith(alg) || value.charCodeAt(prefix) !== COLON) return false;
  let at = prefix + 1;
  for (let i = 0; i < digest.length; i++, at += 2) {
    const byte = digest[i] as number;
    if (value.charCodeAt(at) !== HEX_CODES[byte >> 4] || value.charCodeAt(at + 1) !== HEX_CODES[byte & 15])
      return false;
  }
  return true;
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
