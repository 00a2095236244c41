// Test helpers for the builder: independent re-checks of signatures, hashes and chains.
// PROTOCOL §3 (DSM), §4.2 (pq_over_classical covers DSM ‖ classical sig), §2.2, §6.3; DECISIONS D8.
import { jcsBytes } from '@proto/testing';
import { type CryptoBackend, domainSeparatedMessage } from '../../crypto/index.ts';
import { concatBytes, decodeBase64Strict } from '../../encoding/index.ts';
import { hexDigest } from '../../hash/index.ts';
import type { BundleKeySet, JsonObject } from './types.ts';

/** dcp-jcs-v1 bytes from @proto/testing's independent canonical JSON (not core's, which the tests check). */
export const jcs = jcsBytes;

export function sha256Of(value: unknown): string {
  return `sha256:${hexDigest('sha256', jcs(value))}`;
}

export function sha3Of(value: unknown): string {
  return `sha3-256:${hexDigest('sha3-256', jcs(value))}`;
}

export function obj(value: unknown): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
  return value as JsonObject;
}

export function arr(value: unknown): JsonObject[] {
  if (!Array.isArray(value)) throw new Error('not an array');
  return value as JsonObject[];
}

function b64(text: unknown): Uint8Array {
  const bytes = typeof text === 'string' ? decodeBase64Strict(text) : undefined;
  if (bytes === undefined) throw new Error('bad base64');
  return bytes;
}

/**
 * Verifies a composite signature from first principles (not through the crypto module's verifier):
 * Ed25519 over DSM, ML-DSA-65 over DSM ‖ raw Ed25519 signature. Answers which halves verified.
 */
export function checkComposite(
  backend: CryptoBackend,
  sigValue: unknown,
  keys: BundleKeySet,
  context: string,
  payload: unknown,
): { classical: boolean; pq: boolean | null; binding: unknown } {
  const sig = obj(sigValue);
  const classical = obj(sig['classical']);
  const dsm = domainSeparatedMessage(context, jcs(payload));
  const classicalSig = b64(classical['sig_b64']);
  const classicalOk =
    classical['kid'] === keys.classical.kid &&
    backend.verify('ed25519', keys.classical.publicKey, dsm, classicalSig);
  if (sig['pq'] === null) return { classical: classicalOk, pq: null, binding: sig['binding'] };
  const pq = obj(sig['pq']);
  const pqOk =
    keys.pq !== undefined &&
    pq['kid'] === keys.pq.kid &&
    backend.verify('ml-dsa-65', keys.pq.publicKey, concatBytes(dsm, classicalSig), b64(pq['sig_b64']));
  return { classical: classicalOk, pq: pqOk, binding: sig['binding'] };
}

/** Every number in a value (to check D2: V2 output holds integers only). */
export function allNumbers(value: unknown, out: number[] = []): number[] {
  if (typeof value === 'number') out.push(value);
  else if (Array.isArray(value)) for (const item of value) allNumbers(item, out);
  else if (typeof value === 'object' && value !== null)
    for (const item of Object.values(value)) allNumbers(item, out);
  return out;
}

/** Deterministic byte source for reproducible nonces and checkpoint ids. */
export function seededRandom(seed: number): (length: number) => Uint8Array {
  let counter = 0;
  return (length) => {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i += 32) {
      const block = hexDigest('sha256', `${seed}:${counter++}`);
      for (let j = 0; j < 32 && i + j < length; j++)
        out[i + j] = Number.parseInt(block.slice(j * 2, j * 2 + 2), 16);
    }
    return out;
  };
}
