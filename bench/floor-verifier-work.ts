// What the end-to-end floor verifier (bench/floor-verifier-server.ts, P132) does with one POST /verify body:
// strict UTF-8 decode and JSON.parse, the strict floor's steps (bench/strict-floor.ts, P116), and a real
// node:crypto verification of every signature those steps hand the primitive. Nothing else, so that no
// verifier served by Node can do less per request and still refuse a forged bundle.
//
// The strict floor is timed with JSON.stringify as its writer (P116: the same bytes as the canonical writer
// but for key order); a verifier whose signatures must verify cannot use it, as a builder bundle's keys do not
// arrive in canonical order: every signed message JSON.stringify writes fails. So this floor writes with
// core's canonical writer, which P118 found no cheaper rival to.
import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { ALGORITHM_SIZES, type SigningAlg } from '@proto/core';
import { canonicalWriter } from './protocol-floor.ts';
import { type StrictFloor, strictSteps } from './strict-floor.ts';

/** 200: every signature verified; 400: the body is not a bundle the steps can read; 422: a signature failed. */
export type FloorVerdict =
  | { readonly status: 200 }
  | { readonly status: 400 | 422; readonly code: string; readonly message: string };

/** SPEC: a JSON body that is not UTF-8 is refused, so the decode must be the failing kind. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The signature set of one body: what the floor hands node:crypto (a test holds it against the engine's). */
export function floorSignatureSet(body: Uint8Array): StrictFloor {
  return strictSteps(JSON.parse(STRICT_UTF8.decode(body)), canonicalWriter);
}

/** The algorithm a raw key is for: the two the protocol signs with have different key lengths (§4.3). */
const ALG_BY_KEY_LENGTH = new Map<number, SigningAlg>(
  (Object.entries(ALGORITHM_SIZES) as [SigningAlg, { publicKey: number }][]).map(([alg, s]) => [
    s.publicKey,
    alg,
  ]),
);

/**
 * KeyObjects by the key's bytes, as the engine's backend and the raw replay cache them: the same few keys
 * sign every bundle of a load, and an import per signature would put OpenSSL's key parsing on the floor.
 * Keyed by the whole key, so no two keys can share an entry.
 */
const keys = new Map<string, KeyObject | undefined>();

function keyObjectOf(raw: Uint8Array): KeyObject | undefined {
  const id = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64');
  if (keys.has(id)) return keys.get(id);
  const alg = ALG_BY_KEY_LENGTH.get(raw.length);
  let key: KeyObject | undefined;
  if (alg !== undefined) {
    try {
      // Node 24's raw import: the protocol's keys are raw (§4.3), no SPKI wrapper to build.
      key = createPublicKey({ key: Buffer.from(raw), format: 'raw-public', asymmetricKeyType: alg });
    } catch {
      key = undefined;
    }
  }
  // A bench's load sends a handful of keys; a test's wrong keys a few more.
  if (keys.size < 4096) keys.set(id, key);
  return key;
}

/** Every signature of the set, verified; the index of the first that fails, or -1. */
export function firstFailing(set: StrictFloor): number {
  for (let i = 0; i < set.messages.length; i++) {
    const key = keyObjectOf(set.publicKeys[i]!);
    if (key === undefined) return i;
    try {
      // `null` digest: pure Ed25519 and pure ML-DSA with the empty context (PROTOCOL §4.3).
      if (!verify(null, set.messages[i]!, key, set.signatures[i]!)) return i;
    } catch {
      // OpenSSL throws on some malformed signatures instead of answering false.
      return i;
    }
  }
  return -1;
}

export function floorVerify(body: Uint8Array): FloorVerdict {
  let set: StrictFloor;
  try {
    set = floorSignatureSet(body);
  } catch (error) {
    // Not UTF-8, not JSON, or a bundle whose fields the steps cannot find (a kid without a key among them).
    return { status: 400, code: 'FLOOR_BAD_REQUEST', message: (error as Error).message };
  }
  const failed = firstFailing(set);
  if (failed >= 0)
    return { status: 422, code: 'FLOOR_SIGNATURE_INVALID', message: `signature ${failed} does not verify` };
  return { status: 200 };
}
