// Hashes of canonical JSON: the V2 prefixed form and the V1 bare SHA-256 form.
// PROTOCOL §2.1 (payload_hash, manifest_hash, intent_hash, prev_hash), DECISIONS D2 and D3.
import { canonicalBytesV1, canonicalBytesV2 } from '../canonical/index.ts';
import { ok, type Result } from '../result.ts';
import { type HashAlg, hexDigest } from './digest.ts';
import { prefixedHash } from './prefixed.ts';

/** `<alg>:<hex of alg(dcp-jcs-v1 bytes)>`; the canonicalisation error when the value has no canonical form. */
export function hashCanonicalV2(alg: HashAlg, value: unknown): Result<string> {
  const bytes = canonicalBytesV2(value);
  return bytes.ok ? ok(prefixedHash(alg, hexDigest(alg, bytes.value))) : bytes;
}

/** Bare SHA-256 hex of the V1 canonical bytes, as V1 `intent_hash` and `prev_hash` store it. */
export function hashCanonicalV1(value: unknown): Result<string> {
  const bytes = canonicalBytesV1(value);
  return bytes.ok ? ok(hexDigest('sha256', bytes.value)) : bytes;
}
