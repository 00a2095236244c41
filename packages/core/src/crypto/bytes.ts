// Private byte helpers of the crypto module: strict base64, lowercase hex, UTF-8, concatenation.
// PROTOCOL §4.1 (sig_b64 is standard base64 with padding), DECISIONS D8 (strict base64 before any crypto).

// Kept inside crypto/ on purpose so this module does not depend on the encoding/ module while both
// are being written; the rules are the same (standard alphabet, padding required, canonical).
import { Buffer } from 'node:buffer';

/** A Buffer over the same memory (no copy), for Node's native encoders. */
function view(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Strict base64 decode: standard alphabet only, length a multiple of 4, `=` padding required and
 * only at the end, and canonical (the unused low bits of the last character are zero), so every
 * byte string has exactly one accepted text. Returns undefined for anything else: URL-safe
 * characters, missing padding, whitespace, line breaks, stray characters. Node's decoder accepts
 * all of those (PROTOCOL §4.1 pitfall), but its encoder writes only the one canonical text, so the
 * input is accepted only when re-encoding the decoded bytes reproduces it exactly.
 */
export function decodeBase64Strict(text: unknown): Uint8Array | undefined {
  if (typeof text !== 'string' || text.length % 4 !== 0) return undefined;
  const decoded = Buffer.from(text, 'base64');
  if (decoded.toString('base64') !== text) return undefined;
  // A copy: small Buffers share Node's pool; callers get a plain Uint8Array of their own.
  return new Uint8Array(decoded);
}

/** Standard base64 with padding (the only form `decodeBase64Strict` accepts). */
export function encodeBase64(bytes: Uint8Array): string {
  return view(bytes).toString('base64');
}

/** Lowercase hex, the form kids and hashes take on the wire (PROTOCOL §4.4). */
export function toHex(bytes: Uint8Array): string {
  return view(bytes).toString('hex');
}

const LOWER_HEX = /^(?:[0-9a-f]{2})*$/;

/** Strict lowercase hex decode; undefined for odd length, uppercase or any other character. */
export function fromHexStrict(text: unknown): Uint8Array | undefined {
  if (typeof text !== 'string' || !LOWER_HEX.test(text)) return undefined;
  return new Uint8Array(Buffer.from(text, 'hex'));
}

const UTF8 = new TextEncoder();

export function utf8(text: string): Uint8Array {
  return UTF8.encode(text);
}

export function concatBytes(...parts: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Equality that does not stop at the first differing byte (inputs here are public, but cheap to do). */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** Little-endian unsigned integer (Ed25519 encodes scalars and field elements this way). */
export function bytesToBigIntLE(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  // Big-endian hex of the reversed bytes, parsed natively: far cheaper than a shift per byte.
  return BigInt(`0x${Buffer.from(bytes).reverse().toString('hex')}`);
}

export function isBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array;
}
