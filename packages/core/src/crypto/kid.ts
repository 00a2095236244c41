// Key identifiers: the first 16 bytes of SHA-256 over the algorithm id and the raw public key.
// PROTOCOL §4.4 (kid derivation), DECISIONS D8 (a kid that does not match its key fails, E303).

import { hash } from 'node:crypto';
import { concatBytes, utf8 } from './bytes.ts';

const SEPARATOR = Uint8Array.of(0x00);

/** lowercase_hex(SHA-256(UTF8(alg) ‖ 0x00 ‖ raw public key))[0:32]. `alg` is the registry id, e.g. `ed25519`. */
export function deriveKid(alg: string, publicKey: Uint8Array): string {
  // node:crypto's one-shot hash: the kid of every key is derived once per bundle, and the
  // pure-JS SHA-256 over a 1952-byte ML-DSA key cost more than the rest of the key's handling.
  return hash('sha256', concatBytes(utf8(alg), SEPARATOR, publicKey), 'hex').slice(0, 32);
}

/** The wire form of a kid: exactly 32 lowercase hex characters (PROTOCOL §4.1). */
export function isKidFormat(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{32}$/.test(value);
}
