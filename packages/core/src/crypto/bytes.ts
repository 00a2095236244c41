// Private byte helpers of the crypto module: strict base64, lowercase hex, UTF-8, concatenation.
// PROTOCOL §4.1 (sig_b64 is standard base64 with padding), DECISIONS D8 (strict base64 before any crypto).

// Kept inside crypto/ on purpose so this module does not depend on the encoding/ module while both
// are being written; the rules are the same (standard alphabet, padding required, canonical).

const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Char code → 6-bit value, -1 for anything outside the standard alphabet (including `=`). */
const BASE64_VALUES: Int8Array = (() => {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < BASE64_ALPHABET.length; i++) table[BASE64_ALPHABET.charCodeAt(i)] = i;
  return table;
})();

function base64Value(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code < 128 ? (BASE64_VALUES[code] ?? -1) : -1;
}

/**
 * Strict base64 decode: standard alphabet only, length a multiple of 4, `=` padding required and
 * only at the end, and canonical (the unused low bits of the last character are zero), so every
 * byte string has exactly one accepted text. Returns undefined for anything else: URL-safe
 * characters, missing padding, whitespace, line breaks, stray characters. Node's own decoder
 * accepts all of those (PROTOCOL §4.1 pitfall), which is why it is not used here.
 */
export function decodeBase64Strict(text: unknown): Uint8Array | undefined {
  if (typeof text !== 'string' || text.length % 4 !== 0) return undefined;
  let padding = 0;
  if (text.endsWith('==')) padding = 2;
  else if (text.endsWith('=')) padding = 1;
  const out = new Uint8Array((text.length / 4) * 3 - padding);
  let o = 0;
  for (let i = 0; i < text.length; i += 4) {
    const last = i + 4 === text.length;
    const a = base64Value(text, i);
    const b = base64Value(text, i + 1);
    if (a < 0 || b < 0) return undefined;
    if (last && padding === 2) {
      if ((b & 0x0f) !== 0) return undefined; // non-canonical: unused bits set
      out[o++] = (a << 2) | (b >> 4);
      break;
    }
    const c = base64Value(text, i + 2);
    if (c < 0) return undefined;
    if (last && padding === 1) {
      if ((c & 0x03) !== 0) return undefined; // non-canonical: unused bits set
      out[o++] = (a << 2) | (b >> 4);
      out[o++] = ((b & 0x0f) << 4) | (c >> 2);
      break;
    }
    const d = base64Value(text, i + 3);
    if (d < 0) return undefined;
    out[o++] = (a << 2) | (b >> 4);
    out[o++] = ((b & 0x0f) << 4) | (c >> 2);
    out[o++] = ((c & 0x03) << 6) | d;
  }
  return out;
}

/** Standard base64 with padding (the only form `decodeBase64Strict` accepts). */
export function encodeBase64(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 3 <= bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out +=
      BASE64_ALPHABET[n >> 18]! +
      BASE64_ALPHABET[(n >> 12) & 63]! +
      BASE64_ALPHABET[(n >> 6) & 63]! +
      BASE64_ALPHABET[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += BASE64_ALPHABET[n >> 18]! + BASE64_ALPHABET[(n >> 12) & 63]! + '==';
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out +=
      BASE64_ALPHABET[n >> 18]! + BASE64_ALPHABET[(n >> 12) & 63]! + BASE64_ALPHABET[(n >> 6) & 63]! + '=';
  }
  return out;
}

const HEX_DIGITS = '0123456789abcdef';

/** Lowercase hex, the form kids and hashes take on the wire (PROTOCOL §4.4). */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += HEX_DIGITS[byte >> 4]! + HEX_DIGITS[byte & 15]!;
  return out;
}

/** Strict lowercase hex decode; undefined for odd length, uppercase or any other character. */
export function fromHexStrict(text: unknown): Uint8Array | undefined {
  if (typeof text !== 'string' || !/^(?:[0-9a-f]{2})*$/.test(text)) return undefined;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
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
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]!);
  return n;
}

export function isBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array;
}
