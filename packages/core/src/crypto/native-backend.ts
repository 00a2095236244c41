// The node:crypto backend (OpenSSL 3.5 in Node 24): Ed25519 and ML-DSA-65 with cached KeyObjects.
// docs/architecture.md §2 "Crypto backends", PROTOCOL §4.3 (raw keys, SPKI prefixes, pure ML-DSA, empty context).

import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign as nodeSign,
  verify as nodeVerify,
} from 'node:crypto';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { LRUCache } from 'lru-cache';
import { ALGORITHM_SIZES, isSigningAlg, SIGNING_ALGS, type SigningAlg } from './algorithms.ts';
import type { CryptoBackend, KeyPair } from './backend.ts';
import { bytesEqual, concatBytes, isBytes, utf8 } from './bytes.ts';
import { ed25519Precheck } from './ed25519-strict.ts';
import {
  ed25519Pkcs8FromSeed,
  ed25519SeedFromPkcs8,
  mlDsa65KeyFromPkcs8,
  mlDsa65Pkcs8FromExpanded,
  rawFromSpki,
  spkiFromRaw,
} from './key-encoding.ts';

/** Imported public keys kept per backend; an ML-DSA-65 entry costs a few KiB. */
export const NATIVE_KEY_CACHE_SIZE = 4096;

export interface NativeCapabilities {
  readonly ed25519: boolean;
  readonly mlDsa65: boolean;
  /**
   * Whether OpenSSL imports a 4032-byte FIPS 204 expanded ML-DSA-65 secret key (PKCS#8 with the
   * `expandedKey` choice) and signs with it. OpenSSL 3.5 does. Where it does not, the native
   * backend signs ML-DSA-65 with @noble/post-quantum instead (verification stays native).
   */
  readonly mlDsa65ExpandedSecretKeys: boolean;
}

let probed: NativeCapabilities | undefined;

function selfTest(alg: 'ed25519' | 'ml-dsa-65'): {
  ok: boolean;
  privateKey?: KeyObject;
  publicKey?: KeyObject;
} {
  try {
    const pair = alg === 'ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ml-dsa-65');
    const message = utf8('native backend probe');
    const signature = nodeSign(null, message, pair.privateKey);
    const ok = nodeVerify(null, message, pair.publicKey, signature);
    return { ok, privateKey: pair.privateKey, publicKey: pair.publicKey };
  } catch {
    return { ok: false };
  }
}

/**
 * Probes once what this runtime really supports: a full keygen/sign/verify round per algorithm
 * (ML-DSA needs Node ≥ 24.6 with OpenSSL 3.5), then a round-trip of an expanded ML-DSA-65 secret
 * key through PKCS#8, which is how protocol secret keys reach OpenSSL.
 */
export function probeNativeCapabilities(): NativeCapabilities {
  if (probed !== undefined) return probed;
  const ed25519 = selfTest('ed25519').ok;
  const mlDsa = selfTest('ml-dsa-65');
  let expanded = false;
  if (mlDsa.ok && mlDsa.privateKey !== undefined && mlDsa.publicKey !== undefined) {
    try {
      const der = new Uint8Array(mlDsa.privateKey.export({ format: 'der', type: 'pkcs8' }));
      const parsed = mlDsa65KeyFromPkcs8(der);
      const expandedKey =
        parsed?.expandedKey ?? (parsed?.seed ? ml_dsa65.keygen(parsed.seed).secretKey : undefined);
      if (expandedKey !== undefined) {
        const imported = createPrivateKey({
          key: Buffer.from(mlDsa65Pkcs8FromExpanded(expandedKey)),
          format: 'der',
          type: 'pkcs8',
        });
        const message = utf8('native backend expanded-key probe');
        expanded = nodeVerify(null, message, mlDsa.publicKey, nodeSign(null, message, imported));
      }
    } catch {
      expanded = false;
    }
  }
  probed = Object.freeze({ ed25519, mlDsa65: mlDsa.ok, mlDsa65ExpandedSecretKeys: expanded });
  return probed;
}

function toBytes(buffer: Uint8Array): Uint8Array {
  // Copies out of Node's Buffer (which may be a view into a shared pool) into a plain Uint8Array.
  return Uint8Array.from(buffer);
}

function importPublicKey(alg: SigningAlg, publicKey: Uint8Array): KeyObject {
  const key = createPublicKey({ key: Buffer.from(spkiFromRaw(alg, publicKey)), format: 'der', type: 'spki' });
  if (key.asymmetricKeyType !== alg)
    throw new Error(`imported key is ${key.asymmetricKeyType}, expected ${alg}`);
  return key;
}

function rawPublicKey(alg: SigningAlg, key: KeyObject): Uint8Array {
  const raw = rawFromSpki(alg, new Uint8Array(key.export({ format: 'der', type: 'spki' })));
  if (raw === undefined) throw new Error(`unexpected ${alg} SPKI encoding from node:crypto`);
  return raw;
}

function checkSecretKey(alg: SigningAlg, secretKey: Uint8Array): void {
  if (!isBytes(secretKey) || secretKey.length !== ALGORITHM_SIZES[alg].secretKey) {
    throw new RangeError(`${alg} secret key must be ${ALGORITHM_SIZES[alg].secretKey} bytes`);
  }
}

/**
 * The ed25519 secret key is seed ‖ public key. Signing with a public half that does not belong to
 * the seed would emit signatures that never verify, and implementations that hash the stored half
 * can leak the secret scalar when one seed signs under two public keys; so it is refused.
 */
function ed25519PrivateKey(secretKey: Uint8Array): KeyObject {
  const privateKey = createPrivateKey({
    key: Buffer.from(ed25519Pkcs8FromSeed(secretKey.subarray(0, 32))),
    format: 'der',
    type: 'pkcs8',
  });
  const derived = rawPublicKey('ed25519', createPublicKey(privateKey));
  if (!bytesEqual(derived, secretKey.subarray(32, 64))) {
    throw new Error('ed25519 secret key: the public half does not belong to the seed');
  }
  return privateKey;
}

export function createNativeBackend(): CryptoBackend {
  const capabilities = probeNativeCapabilities();
  const algorithms: readonly SigningAlg[] = Object.freeze(
    SIGNING_ALGS.filter((alg) => (alg === 'ed25519' ? capabilities.ed25519 : capabilities.mlDsa65)),
  );
  const keyCache = new LRUCache<string, KeyObject>({ max: NATIVE_KEY_CACHE_SIZE });

  const supports = (alg: unknown): alg is SigningAlg => isSigningAlg(alg) && algorithms.includes(alg);

  // One bundle verifies many signatures with the same decoded key array (every checkpoint of a
  // maximum bundle names the same two keys): the array itself finds its KeyObject. The entry keeps
  // a private copy of the bytes and is used only while the array still holds exactly those bytes,
  // so an array a caller rewrites in place can never be verified under its earlier key.
  // The copy has memory of its own (P137), never a slice of Node's Buffer pool: a scavenge keeps an entry's
  // value after its key array is gone, so a pool slice pinned its whole 8 KiB slab (and every signature and
  // text cut from it) until a mark-compact: ~100 KB an elevated bundle, a mark-compact every 80-125 bundles
  // in each verification thread. A 32-byte Ed25519 copy lives in the JS heap, not in external memory.
  const byArray = new WeakMap<Uint8Array, { alg: SigningAlg; bytes: Uint8Array; key: KeyObject }>();

  function publicKeyObject(alg: SigningAlg, publicKey: Uint8Array): KeyObject {
    const seen = byArray.get(publicKey);
    if (seen !== undefined && seen.alg === alg && Buffer.compare(seen.bytes, publicKey) === 0)
      return seen.key;
    // The whole key is the cache key (not a hash of it): no collision can swap one key for another.
    // Node's native base64 (no copy) keeps the lookup at a few µs even for a 1952-byte ML-DSA key.
    const cacheKey = `${alg}:${Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString('base64')}`;
    let key = keyCache.get(cacheKey);
    if (key === undefined) {
      key = importPublicKey(alg, publicKey);
      keyCache.set(cacheKey, key);
    }
    byArray.set(publicKey, { alg, bytes: new Uint8Array(publicKey), key });
    return key;
  }

  function requireAlg(alg: SigningAlg): void {
    if (!supports(alg)) throw new Error(`algorithm ${String(alg)} is not available in the native backend`);
  }

  return Object.freeze({
    name: 'native' as const,
    algorithms,

    verify(alg: SigningAlg, publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
      try {
        if (!supports(alg) || !isBytes(publicKey) || !isBytes(message) || !isBytes(signature)) return false;
        const sizes = ALGORITHM_SIZES[alg];
        if (publicKey.length !== sizes.publicKey || signature.length !== sizes.signature) return false;
        if (alg === 'ed25519' && !ed25519Precheck(publicKey, signature)) return false;
        // `null` digest: pure Ed25519 / pure ML-DSA with OpenSSL's default empty context string.
        return nodeVerify(null, message, publicKeyObject(alg, publicKey), signature);
      } catch {
        return false;
      }
    },

    sign(alg: SigningAlg, secretKey: Uint8Array, message: Uint8Array): Uint8Array {
      requireAlg(alg);
      checkSecretKey(alg, secretKey);
      if (alg === 'ed25519') return toBytes(nodeSign(null, message, ed25519PrivateKey(secretKey)));
      if (!capabilities.mlDsa65ExpandedSecretKeys) {
        // Fallback (documented): this OpenSSL cannot import a FIPS 204 expanded secret key, so the
        // signature is made by @noble/post-quantum (same FIPS 204 pure mode, empty context, hedged).
        return ml_dsa65.sign(message, secretKey);
      }
      const privateKey = createPrivateKey({
        key: Buffer.from(mlDsa65Pkcs8FromExpanded(secretKey)),
        format: 'der',
        type: 'pkcs8',
      });
      // OpenSSL signs ML-DSA hedged (fresh randomness mixed in) with the empty context by default.
      return toBytes(nodeSign(null, message, privateKey));
    },

    generateKeyPair(alg: SigningAlg): KeyPair {
      requireAlg(alg);
      if (alg === 'ed25519') {
        const pair = generateKeyPairSync('ed25519');
        const publicKey = rawPublicKey('ed25519', pair.publicKey);
        const seed = ed25519SeedFromPkcs8(
          new Uint8Array(pair.privateKey.export({ format: 'der', type: 'pkcs8' })),
        );
        if (seed === undefined) throw new Error('unexpected ed25519 PKCS#8 encoding from node:crypto');
        return Object.freeze({ alg, publicKey, secretKey: concatBytes(seed, publicKey) });
      }
      const pair = generateKeyPairSync('ml-dsa-65');
      const publicKey = rawPublicKey('ml-dsa-65', pair.publicKey);
      const parsed = mlDsa65KeyFromPkcs8(
        new Uint8Array(pair.privateKey.export({ format: 'der', type: 'pkcs8' })),
      );
      // OpenSSL 3.5 exports seed and expanded key together; a seed-only export is expanded with the
      // deterministic FIPS 204 KeyGen_internal(ξ), which gives the same key in every implementation.
      const secretKey =
        parsed?.expandedKey ??
        (parsed?.seed !== undefined ? ml_dsa65.keygen(parsed.seed).secretKey : undefined);
      if (secretKey === undefined) throw new Error('unexpected ML-DSA-65 PKCS#8 encoding from node:crypto');
      return Object.freeze({ alg, publicKey, secretKey });
    },
  });
}
