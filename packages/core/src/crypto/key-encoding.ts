// DER wrappers (SPKI, PKCS#8) between raw protocol keys and what node:crypto imports and exports.
// PROTOCOL §4.3 (raw encodings; SPKI prefixes for Ed25519 and ML-DSA-65), RFC 8410, RFC 9881 (ML-DSA keys).

import type { SigningAlg } from './algorithms.ts';
import { ALGORITHM_SIZES } from './algorithms.ts';
import { bytesEqual, concatBytes, fromHexStrict } from './bytes.ts';

function hex(text: string): Uint8Array {
  const bytes = fromHexStrict(text);
  if (bytes === undefined) throw new Error(`bad hex constant ${text}`);
  return bytes;
}

/** SPKI DER = prefix ‖ raw public key (PROTOCOL §4.3). */
const SPKI_PREFIX: Readonly<Record<SigningAlg, Uint8Array>> = {
  ed25519: hex('302a300506032b6570032100'),
  'ml-dsa-65': hex('308207b2300b0609608648016503040312038207a100'),
};

/** PKCS#8 DER of an Ed25519 private key = prefix ‖ 32-byte seed (RFC 8410 §7). */
const ED25519_PKCS8_PREFIX = hex('302e020100300506032b657004220420');

/** PKCS#8 header up to the privateKey OCTET STRING for ML-DSA-65 (OID 2.16.840.1.101.3.4.3.18). */
const ML_DSA_65_ALGORITHM_ID = hex('300b0609608648016503040312');

/**
 * PKCS#8 DER of an ML-DSA-65 key in the `expandedKey` choice of ML-DSA-PrivateKey (RFC 9881):
 * SEQUENCE { INTEGER 0, AlgorithmIdentifier, OCTET STRING { OCTET STRING (4032 bytes) } }.
 */
const ML_DSA_65_PKCS8_EXPANDED_PREFIX = hex('30820fd8020100300b060960864801650304031204820fc404820fc0');

export function spkiFromRaw(alg: SigningAlg, publicKey: Uint8Array): Uint8Array {
  return concatBytes(SPKI_PREFIX[alg], publicKey);
}

/** The raw key inside an SPKI DER, or undefined when the DER is not exactly prefix ‖ key. */
export function rawFromSpki(alg: SigningAlg, der: Uint8Array): Uint8Array | undefined {
  const prefix = SPKI_PREFIX[alg];
  if (der.length !== prefix.length + ALGORITHM_SIZES[alg].publicKey) return undefined;
  if (!bytesEqual(der.subarray(0, prefix.length), prefix)) return undefined;
  return Uint8Array.from(der.subarray(prefix.length));
}

export function ed25519Pkcs8FromSeed(seed: Uint8Array): Uint8Array {
  return concatBytes(ED25519_PKCS8_PREFIX, seed);
}

/** The 32-byte seed inside an Ed25519 PKCS#8 DER, or undefined when it is not exactly prefix ‖ seed. */
export function ed25519SeedFromPkcs8(der: Uint8Array): Uint8Array | undefined {
  if (der.length !== ED25519_PKCS8_PREFIX.length + 32) return undefined;
  if (!bytesEqual(der.subarray(0, ED25519_PKCS8_PREFIX.length), ED25519_PKCS8_PREFIX)) return undefined;
  return Uint8Array.from(der.subarray(ED25519_PKCS8_PREFIX.length));
}

export function mlDsa65Pkcs8FromExpanded(expandedKey: Uint8Array): Uint8Array {
  return concatBytes(ML_DSA_65_PKCS8_EXPANDED_PREFIX, expandedKey);
}

interface Tlv {
  readonly tag: number;
  readonly start: number;
  readonly end: number;
}

/** One DER TLV at `offset` (definite lengths up to 2 length bytes, enough for these keys). */
function readTlv(der: Uint8Array, offset: number): Tlv | undefined {
  const tag = der[offset];
  const first = der[offset + 1];
  if (tag === undefined || first === undefined) return undefined;
  let length: number;
  let start: number;
  if (first < 0x80) {
    length = first;
    start = offset + 2;
  } else if (first === 0x81) {
    length = der[offset + 2] ?? -1;
    start = offset + 3;
  } else if (first === 0x82) {
    const hi = der[offset + 2];
    const lo = der[offset + 3];
    if (hi === undefined || lo === undefined) return undefined;
    length = (hi << 8) | lo;
    start = offset + 4;
  } else {
    return undefined;
  }
  if (length < 0 || start + length > der.length) return undefined;
  return { tag, start, end: start + length };
}

/**
 * Reads an ML-DSA-65 PKCS#8 DER in any of the three ML-DSA-PrivateKey choices (RFC 9881):
 * `seed` ([0] IMPLICIT OCTET STRING, 32 bytes), `expandedKey` (OCTET STRING, 4032 bytes) or
 * `both` (SEQUENCE { seed, expandedKey }). OpenSSL 3.5 exports `both` by default.
 */
export function mlDsa65KeyFromPkcs8(
  der: Uint8Array,
): { readonly seed?: Uint8Array; readonly expandedKey?: Uint8Array } | undefined {
  const outer = readTlv(der, 0);
  if (outer?.tag !== 0x30 || outer.end !== der.length) return undefined;
  const version = readTlv(der, outer.start);
  if (version?.tag !== 0x02 || version.end - version.start !== 1 || der[version.start] !== 0)
    return undefined;
  const algorithm = readTlv(der, version.end);
  if (algorithm?.tag !== 0x30) return undefined;
  if (!bytesEqual(der.subarray(version.end, algorithm.end), ML_DSA_65_ALGORITHM_ID)) return undefined;
  const privateKey = readTlv(der, algorithm.end);
  // Optional trailing attributes / public key members are not expected from OpenSSL: refuse them.
  if (privateKey?.tag !== 0x04 || privateKey.end !== outer.end) return undefined;
  const choice = readTlv(der, privateKey.start);
  if (choice === undefined || choice.end !== privateKey.end) return undefined;
  const body = der.subarray(choice.start, choice.end);
  const expandedLength = ALGORITHM_SIZES['ml-dsa-65'].secretKey;
  if (choice.tag === 0x80 && body.length === 32) return { seed: Uint8Array.from(body) };
  if (choice.tag === 0x04 && body.length === expandedLength) return { expandedKey: Uint8Array.from(body) };
  if (choice.tag === 0x30) {
    const seed = readTlv(der, choice.start);
    if (seed?.tag !== 0x04 || seed.end - seed.start !== 32) return undefined;
    const expanded = readTlv(der, seed.end);
    if (expanded?.tag !== 0x04 || expanded.end !== choice.end) return undefined;
    if (expanded.end - expanded.start !== expandedLength) return undefined;
    return {
      seed: Uint8Array.from(der.subarray(seed.start, seed.end)),
      expandedKey: Uint8Array.from(der.subarray(expanded.start, expanded.end)),
    };
  }
  return undefined;
}
