// Strict standard Base64 (RFC 4648 §4): one accepted spelling per byte string for keys and signatures.
// PROTOCOL §4.1 (`sig_b64` is padded standard Base64; lenient decoders are a pitfall), DECISIONS D8.
import { Buffer } from 'node:buffer';

/** Only the standard alphabet, whole quanta, `=` padding exactly where RFC 4648 puts it. */
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard alphabet with padding. */
export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/**
 * Decodes standard, padded Base64 and refuses everything else: the URL-safe alphabet, missing or
 * extra padding, whitespace, and non-canonical text whose unused trailing bits are not zero (two
 * spellings of the same bytes would let a signature's text change while its bytes do not).
 */
export function decodeBase64Strict(text: string): Uint8Array | undefined {
  if (typeof text !== 'string' || !STRICT_BASE64.test(text)) return undefined;
  const decoded = Buffer.from(text, 'base64');
  // Node ignores non-zero trailing bits; re-encoding exposes them.
  if (decoded.toString('base64') !== text) return undefined;
  return new Uint8Array(decoded);
}
