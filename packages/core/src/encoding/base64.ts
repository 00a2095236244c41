// Strict standard Base64 (RFC 4648 §4): one accepted spelling per byte string for keys and signatures.
// PROTOCOL §4.1 (`sig_b64` is padded standard Base64; lenient decoders are a pitfall), DECISIONS D8.
import { Buffer } from 'node:buffer';

/** Standard alphabet with padding. */
export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/**
 * Decodes standard, padded Base64 and refuses everything else: the URL-safe alphabet, missing or
 * extra padding, whitespace, and non-canonical text whose unused trailing bits are not zero (two
 * spellings of the same bytes would let a signature's text change while its bytes do not).
 *
 * Node's decoder is lenient (it skips or maps all of those), but its encoder writes exactly one
 * text per byte string: standard alphabet, `=` padding only at the end, zero trailing bits. So the
 * input is accepted only when re-encoding the decoded bytes gives the input back; that single
 * comparison is the whole RFC 4648 §4 grammar plus canonicality, and it is far cheaper than a
 * regular expression over a multi-KB ML-DSA signature.
 */
export function decodeBase64Strict(text: string): Uint8Array | undefined {
  if (typeof text !== 'string' || text.length % 4 !== 0) return undefined;
  const decoded = Buffer.from(text, 'base64');
  if (decoded.toString('base64') !== text) return undefined;
  // A copy: small Buffers share Node's pool, and callers get a plain Uint8Array of their own.
  return new Uint8Array(decoded);
}
