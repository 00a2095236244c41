// Lowercase hexadecimal, the only hex spelling the protocol writes (hashes, kids, nonces).
// PROTOCOL §2.1 ("All hex is lowercase"), DECISIONS D3.
import { Buffer } from 'node:buffer';

const LOWER_HEX = /^(?:[0-9a-f]{2})*$/;

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** Even length and `[0-9a-f]` only; uppercase or odd-length text is not a value we produce, so it is refused. */
export function fromHex(hex: string): Uint8Array | undefined {
  if (typeof hex !== 'string' || !LOWER_HEX.test(hex)) return undefined;
  return new Uint8Array(Buffer.from(hex, 'hex'));
}
