// Key sets for the builder: generation, KeyEntry objects and a JSON form for committed fixture keys.
// PROTOCOL §4.3 (key sizes, Ed25519 secret = seed ‖ pk), §4.4 (kid derivation), §4.5 (KeyEntry); D8.
import { type CryptoBackend, deriveKid, publicKeyFromSecret } from '../../crypto/index.ts';
import { decodeBase64Strict, encodeBase64 } from '../../encoding/index.ts';
import { type CoreError, coreError, err, ok, type Result } from '../../result.ts';
import type { BundleKeyPair, BundleKeySet, JsonObject } from './types.ts';

/** Generates a principal or agent key set: Ed25519 plus ML-DSA-65 unless `pq: false`. */
export function generateBundleKeys(backend: CryptoBackend, options: { pq?: boolean } = {}): BundleKeySet {
  const classical = generatePair(backend, 'ed25519');
  if (options.pq === false) return { classical };
  return { classical, pq: generatePair(backend, 'ml-dsa-65') };
}

function generatePair<A extends 'ed25519' | 'ml-dsa-65'>(backend: CryptoBackend, alg: A): BundleKeyPair<A> {
  const pair = backend.generateKeyPair(alg);
  return { alg, kid: deriveKid(alg, pair.publicKey), publicKey: pair.publicKey, secretKey: pair.secretKey };
}

/** KeyEntry (PROTOCOL §4.5): all six members, no others. */
export function keyEntry(
  pair: BundleKeyPair<'ed25519' | 'ml-dsa-65'>,
  createdAt: string,
  expiresAt: string | null,
): JsonObject {
  return {
    kid: pair.kid,
    alg: pair.alg,
    public_key_b64: encodeBase64(pair.publicKey),
    created_at: createdAt,
    expires_at: expiresAt,
    status: 'active',
  };
}

/** The KeyEntry list of a key set, classical first (as the SDKs write it). */
export function keyEntries(keys: BundleKeySet, createdAt: string, expiresAt: string | null): JsonObject[] {
  const entries = [keyEntry(keys.classical, createdAt, expiresAt)];
  if (keys.pq) entries.push(keyEntry(keys.pq, createdAt, expiresAt));
  return entries;
}

/** JSON form of one key, the same shape `proto keygen` prints. */
export interface KeyPairJson {
  readonly alg: 'ed25519' | 'ml-dsa-65';
  readonly kid: string;
  readonly public_key_b64: string;
  readonly secret_key_b64: string;
}

export function keyPairToJson(pair: BundleKeyPair<'ed25519' | 'ml-dsa-65'>): KeyPairJson {
  return {
    alg: pair.alg,
    kid: pair.kid,
    public_key_b64: encodeBase64(pair.publicKey),
    secret_key_b64: encodeBase64(pair.secretKey),
  };
}

/** JSON form of a key set (test fixtures only: it holds secret keys). */
export function bundleKeysToJson(keys: BundleKeySet): { classical: KeyPairJson; pq?: KeyPairJson } {
  return keys.pq
    ? { classical: keyPairToJson(keys.classical), pq: keyPairToJson(keys.pq) }
    : { classical: keyPairToJson(keys.classical) };
}

/**
 * Reads a key set written by bundleKeysToJson. Checks the algorithm, strict base64, that the
 * public key belongs to the secret key and that the kid is derived from it (D8).
 */
export function bundleKeysFromJson(value: unknown): Result<BundleKeySet> {
  if (!isObject(value)) return err(bad('key set must be an object'));
  const classical = keyPairFromJson(value['classical'], 'ed25519');
  if (!classical.ok) return classical;
  if (value['pq'] === undefined || value['pq'] === null) return ok({ classical: classical.value });
  const pq = keyPairFromJson(value['pq'], 'ml-dsa-65');
  if (!pq.ok) return pq;
  return ok({ classical: classical.value, pq: pq.value });
}

function keyPairFromJson<A extends 'ed25519' | 'ml-dsa-65'>(
  value: unknown,
  alg: A,
): Result<BundleKeyPair<A>> {
  if (!isObject(value)) return err(bad(`${alg} key must be an object`));
  if (value['alg'] !== alg) return err(bad(`expected alg ${alg}, got ${String(value['alg'])}`));
  const publicKey = decodeField(value, 'public_key_b64');
  if (!publicKey.ok) return publicKey;
  const secretKey = decodeField(value, 'secret_key_b64');
  if (!secretKey.ok) return secretKey;
  let derivedPublic: Uint8Array;
  try {
    derivedPublic = publicKeyFromSecret(alg, secretKey.value);
  } catch (cause) {
    return err(bad(`${alg} secret key unusable: ${cause instanceof Error ? cause.message : String(cause)}`));
  }
  if (!sameBytes(derivedPublic, publicKey.value))
    return err(bad(`${alg} public key does not match secret key`));
  const kid = deriveKid(alg, publicKey.value);
  if (value['kid'] !== undefined && value['kid'] !== kid) {
    return err(coreError('KID_MISMATCH', `${alg} kid ${String(value['kid'])} is not derived from its key`));
  }
  return ok({ alg, kid, publicKey: publicKey.value, secretKey: secretKey.value });
}

function decodeField(value: Record<string, unknown>, field: string): Result<Uint8Array> {
  const text = value[field];
  if (typeof text !== 'string') return err(bad(`${field} must be a string`));
  const bytes = decodeBase64Strict(text);
  return bytes === undefined ? err(bad(`${field} is not strict base64`)) : ok(bytes);
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function bad(message: string): CoreError {
  return coreError('ARTIFACT_SCHEMA_INVALID', message);
}
