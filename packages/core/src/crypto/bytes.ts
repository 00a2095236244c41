// Byte helpers the crypto module uses: the shared encoding helpers under the names crypto code calls,
// plus the two it alone needs. PROTOCOL §4.1 (strict sig_b64), §4.4 (hex kids), DECISIONS D8.
import { Buffer } from 'node:buffer';
import {
  bytesEqual,
  concatBytes,
  decodeBase64Strict as decodeBase64,
  encodeBase64,
  fromHex,
  toHex,
  utf8Encode,
} from '../encoding/index.ts';

export { bytesEqual, concatBytes, encodeBase64, toHex, utf8Encode as utf8 };

/** Strict base64 (encoding/base64.ts) for values not yet known to be strings, as parsed JSON is. */
export function decodeBase64Strict(text: unknown): Uint8Array | undefined {
  return typeof text === 'string' ? decodeBase64(text) : undefined;
}

/** Strict lowercase hex (encoding/hex.ts) for values not yet known to be strings. */
export function fromHexStrict(text: unknown): Uint8Array | undefined {
  return typeof text === 'string' ? fromHex(text) : undefined;
}

/** Little-endian unsigned integer (Ed25519 encodes scalars and field elements this way). */
export function bytesToBigIntLE(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  // Big-endian hex of the reversed bytes, parsed natively: far cheaper than a shift per byte.
  return BigInt(`0x${Buffer.from(bytes).reverse().toString('hex')}`);
}

/** The 32-byte little-endian encoding of 0 ≤ value < 2^256 (Ed25519 scalars and field elements). */
export function littleEndian32(value: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let n = value;
  for (let i = 0; i < 32; i++) {
    out[i] = Number(n & 0xffn);
    n >>= 8n;
  }
  return out;
}

export function isBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array;
}
