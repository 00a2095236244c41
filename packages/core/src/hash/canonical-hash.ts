// Hashes of canonical JSON: the V2 prefixed form and the V1 bare SHA-256 form.
// PROTOCOL §2.1 (payload_hash, manifest_hash, intent_hash, prev_hash), DECISIONS D2 and D3.
import { createHash, type Hash } from 'node:crypto';
import {
  type CanonicalMemo,
  type CanonicalSink,
  canonicalBytesV1,
  canonicalBytesV2,
  type MemoEntry,
  writeCanonicalV2,
} from '../canonical/index.ts';
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

/** Text pieces are gathered up to this many UTF-16 units before one `update` (a call per piece costs more). */
const PENDING_LIMIT = 32 * 1024;

/** Feeds a canonical writer's output into incremental hashes: memoised parts as their bytes. */
class HashSink implements CanonicalSink {
  private pending = '';
  private readonly hashers: readonly Hash[];
  constructor(hashers: readonly Hash[]) {
    this.hashers = hashers;
  }

  text(piece: string): void {
    this.pending += piece;
    if (this.pending.length >= PENDING_LIMIT) this.flush();
  }

  reuse(entry: MemoEntry): void {
    this.flush();
    const piece = entry.bytes ?? entry.text;
    for (const hasher of this.hashers) hasher.update(piece);
  }

  flush(): void {
    if (this.pending.length === 0) return;
    for (const hasher of this.hashers) hasher.update(this.pending);
    this.pending = '';
  }
}

/**
 * Bare hex of alg(dcp-jcs-v1 bytes of `value`), hashed as it is written: the same digest as hashing
 * `canonicalBytesV2(value)`, without the text of the whole value. Containers remembered in `memo` go
 * in as the bytes already encoded for them. The canonicalisation error when there is no canonical form.
 */
export function hexDigestCanonicalV2(alg: HashAlg, value: unknown, memo?: CanonicalMemo): Result<string> {
  const digests = hexDigestsCanonicalV2([alg], value, memo);
  return digests.ok ? ok(digests.value[0] as string) : digests;
}

/**
 * The same for several algorithms at once, from one walk of the value (the bundle's SHA-256 and
 * SHA3-256 hashes, P62): one hex digest per algorithm, in the order given.
 */
export function hexDigestsCanonicalV2(
  algs: readonly HashAlg[],
  value: unknown,
  memo?: CanonicalMemo,
): Result<string[]> {
  const hashers = algs.map((alg) => createHash(alg));
  const sink = new HashSink(hashers);
  const written = writeCanonicalV2(value, sink, memo);
  if (!written.ok) return written;
  sink.flush();
  return ok(hashers.map((hasher) => hasher.digest('hex')));
}
