// Shared signing and hashing steps of the builder: SignedPayload envelopes, checkpoint signatures,
// canonical hashes. PROTOCOL §3 (DSM = context ‖ 0x00 ‖ jcs), §4.2 (composite), §6.3; D2, D8.
import { canonicalBytesV2 } from '../../canonical/index.ts';
import { type CryptoBackend, compositeSign } from '../../crypto/index.ts';
import { hexDigest, prefixedHash } from '../../hash/index.ts';
import type { Result } from '../../result.ts';
import type { BundleKeySet, JsonObject } from './types.ts';

/** The builder only throws on programmer error: a failed canonicalisation of its own output is one. */
export function unwrap<T>(result: Result<T>, what: string): T {
  if (!result.ok) throw new Error(`bundle builder: ${what}: ${result.error.message}`);
  return result.value;
}

/** dcp-jcs-v1 bytes of a builder-made value (integers only, D2). */
export function jcsBytes(value: unknown, what: string): Uint8Array {
  return unwrap(canonicalBytesV2(value), `canonicalising ${what}`);
}

/** 'sha256:<hex>' / 'sha3-256:<hex>' of raw bytes (D3). */
export function prefixed(alg: 'sha256' | 'sha3-256', bytes: Uint8Array): string {
  return prefixedHash(alg, hexDigest(alg, bytes));
}

/** The signer description compositeSign takes; the PQ half is left out when classical-only. */
export function signerOf(keys: BundleKeySet, classicalOnly: boolean) {
  const classical = { alg: 'ed25519' as const, kid: keys.classical.kid, secretKey: keys.classical.secretKey };
  if (classicalOnly || !keys.pq) return { classical };
  return { classical, pq: { alg: 'ml-dsa-65' as const, kid: keys.pq.kid, secretKey: keys.pq.secretKey } };
}

export interface Signer {
  readonly backend: CryptoBackend;
  readonly keys: BundleKeySet;
  readonly classicalOnly: boolean;
}

/** Composite signature over jcs(value) under one full context string (D8). */
export function compositeOver(signer: Signer, context: string, value: unknown, what: string): JsonObject {
  const bytes = jcsBytes(value, what);
  const sig = compositeSign(signer.backend, signerOf(signer.keys, signer.classicalOnly), context, bytes);
  // Plain JSON copy: the wire object must not share structure with the crypto layer's value.
  return JSON.parse(JSON.stringify(sig)) as JsonObject;
}

/** SignedPayload {payload, payload_hash, composite_sig} (PROTOCOL §6.1, §6.3). */
export function signedPayload(
  signer: Signer,
  context: string,
  payload: JsonObject,
  what: string,
): JsonObject {
  const bytes = jcsBytes(payload, what);
  return {
    payload,
    payload_hash: prefixed('sha256', bytes),
    composite_sig: compositeOver(signer, context, payload, what),
  };
}
