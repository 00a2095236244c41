// Canonical bytes and digests of every V2 part, computed once and shared by all checks.
// DECISIONS D2 (dcp-jcs-v1; a number it refuses is E001/E002, never an exception), D3 (prefixed hashes).
import { type CanonicalMemo, canonicalMemoV2 } from '../../canonical/index.ts';
import { canonicalBytesSharedV2, encodedCanonicalV2 } from '../../canonical/v2.ts';
import { type FramedPayload, framePayload } from '../../crypto/domain.ts';
import { hexDigest, prefixedHash } from '../../hash/index.ts';
import { type ContextName, contextString, type ProtocolProfile } from '../../profile.ts';
import type { JsonRecord } from '../json.ts';
import type { Ledger } from '../ledger.ts';
import {
  ARTIFACTS,
  type ArtifactField,
  type ArtifactView,
  type CheckpointView,
  type EntryView,
  type V2Parts,
} from './context.ts';

export interface V2Forms {
  readonly artifacts: Readonly<Record<ArtifactField, ArtifactView>>;
  readonly entries: readonly EntryView[];
  readonly checkpoints: readonly CheckpointView[];
  readonly manifestBytes: Uint8Array;
  /** The manifest's bytes behind the Bundle context prefix (its signature's messages). */
  readonly manifestFramed: FramedPayload;
  readonly manifestHash: string;
  /** The texts above by object identity, for the bundle hash (computed from them, not again). */
  readonly memo: CanonicalMemo;
}

/** The checkpoint without `composite_sig`: the object its signature covers (D6). */
export function checkpointBody(checkpoint: JsonRecord): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const keys = Object.keys(checkpoint);
  // Indexed loops here and below: `for…of` left an iterator (and an [i, value] pair) per loop or
  // element on the heap in these hot paths (P133).
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k] as string;
    if (key !== 'composite_sig') body[key] = checkpoint[key];
  }
  return body;
}

/** Room after a signed payload for the classical (Ed25519) signature its PQ message appends. */
const CLASSICAL_SIGNATURE_ROOM = 64;

/**
 * Canonicalises each part once; the first part without a canonical form fails `schema` and stops. A
 * signed part is written behind its context prefix under `profile` (its signature's messages, P128).
 */
export function canonicalFormsV2(
  ledger: Ledger,
  parts: V2Parts,
  profile: ProtocolProfile,
): V2Forms | undefined {
  const memo = canonicalMemoV2();
  let framed: FramedPayload | undefined;
  const framedIn =
    (context: ContextName) =>
    (text: string): Uint8Array => {
      framed = framePayload(contextString(profile, context), text, CLASSICAL_SIGNATURE_ROOM);
      return framed.payload;
    };
  const manifest = encodedCanonicalV2(parts.manifest, memo, framedIn('Bundle'));
  const manifestFramed = framed;
  if (!manifest.ok) {
    ledger.fail('schema', 'BUNDLE_SCHEMA_INVALID', `manifest: ${manifest.error.message}`);
    return undefined;
  }
  const artifacts = {} as Record<ArtifactField, ArtifactView>;
  for (const spec of ARTIFACTS) {
    const envelope = parts.envelopes[spec.field];
    const payload = envelope['payload'] as JsonRecord;
    const bytes = encodedCanonicalV2(payload, memo, framedIn(spec.context));
    if (!bytes.ok) {
      ledger.fail('schema', 'ARTIFACT_SCHEMA_INVALID', `${spec.field}.payload: ${bytes.error.message}`);
      return undefined;
    }
    artifacts[spec.field] = {
      ...spec,
      envelope,
      payload,
      bytes: bytes.value,
      framed: framed as FramedPayload,
      hash: prefixedHash('sha256', hexDigest('sha256', bytes.value)),
    };
  }
  const entries: EntryView[] = [];
  for (let i = 0; i < parts.entries.length; i++) {
    const value = parts.entries[i] as JsonRecord;
    const bytes = canonicalBytesSharedV2(value, memo);
    if (!bytes.ok) {
      ledger.fail('schema', 'ARTIFACT_SCHEMA_INVALID', `audit_entries[${i}]: ${bytes.error.message}`);
      return undefined;
    }
    entries.push({ value, bytes: bytes.value, sha256: hexDigest('sha256', bytes.value) });
  }
  const checkpoints: CheckpointView[] = [];
  for (let i = 0; i < parts.checkpoints.length; i++) {
    const value = parts.checkpoints[i] as JsonRecord;
    const bytes = encodedCanonicalV2(checkpointBody(value), undefined, framedIn('AuditEvent'));
    if (!bytes.ok) {
      ledger.fail('schema', 'ARTIFACT_SCHEMA_INVALID', `pq_checkpoints[${i}]: ${bytes.error.message}`);
      return undefined;
    }
    checkpoints.push({
      value,
      shape: Object.hasOwn(value, 'event_range') ? 'sdk' : 'spec',
      signedBytes: bytes.value,
      signedFramed: framed as FramedPayload,
    });
  }
  return {
    artifacts,
    entries,
    checkpoints,
    manifestBytes: manifest.value,
    manifestFramed: manifestFramed as FramedPayload,
    manifestHash: prefixedHash('sha256', hexDigest('sha256', manifest.value)),
    memo,
  };
}
