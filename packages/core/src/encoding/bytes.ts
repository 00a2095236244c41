// Byte helpers shared by hashing, Merkle trees and signatures: UTF-8, concatenation, comparison.
// PROTOCOL §1.1 rule 3 (canonical JSON is hashed as UTF-8) and §2.2 (node = H(left ‖ right)).

import type { Buffer } from 'node:buffer';

const UTF8 = new TextEncoder();

/** UTF-8 bytes of a string; a lone surrogate becomes U+FFFD (canonical JSON rejects those before this point). */
export function utf8Encode(text: string): Uint8Array {
  return UTF8.encode(text);
}

/**
 * The same memory as a plain Uint8Array: a Buffer's slice() would share it where the engine's callers expect a
 * Uint8Array's slice() to copy (P128). The memory may be a slice of Node's pool beside other Buffers; the view
 * reaches only its own range.
 */
export function plainBytesOf(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.byteLength;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}

/**
 * Equal length and equal bytes. The loop does not stop at the first difference, so comparing a
 * computed digest or MAC with a supplied one does not leak where they diverge (lengths are public).
 */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  let diff = 0;
  for (let i = 0; i < a.byteLength; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}
