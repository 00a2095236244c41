// The state shared by the V2 checks of one bundle: its parts, their canonical bytes and hashes, keys.
// DECISIONS D2 (canonicalise each object once), D5–D10; PROTOCOL §6.1–§6.6.

import type { FramedPayload } from '../../crypto/domain.ts';
import type { HashAlg } from '../../hash/index.ts';
import type { TierResolution } from '../../policy/resolve-tier.ts';
import type { ContextName } from '../../profile.ts';
import type { JsonRecord } from '../json.ts';
import type { Ledger } from '../ledger.ts';
import type { VerifierRuntime } from '../settings.ts';
import type { KeyDirectory, KeyRecord } from './keys.ts';

export type ArtifactField = 'responsible_principal_record' | 'agent_passport' | 'intent' | 'policy_decision';
export type ManifestHashField = 'rpr_hash' | 'passport_hash' | 'intent_hash' | 'policy_hash';

export interface ArtifactSpec {
  readonly field: ArtifactField;
  readonly context: ContextName;
  readonly manifestField: ManifestHashField;
}

/** The four signed artifacts in session-binding order (PROTOCOL §6.4) with contexts (§6.3). */
export const ARTIFACTS: readonly ArtifactSpec[] = Object.freeze([
  { field: 'responsible_principal_record', context: 'ResponsiblePrincipal', manifestField: 'rpr_hash' },
  { field: 'agent_passport', context: 'AgentPassport', manifestField: 'passport_hash' },
  { field: 'intent', context: 'Intent', manifestField: 'intent_hash' },
  { field: 'policy_decision', context: 'PolicyDecision', manifestField: 'policy_hash' },
]);

export interface ArtifactView extends ArtifactSpec {
  /** `{payload, payload_hash, composite_sig}`. */
  readonly envelope: JsonRecord;
  readonly payload: JsonRecord;
  /** jcs(payload) as UTF-8. */
  readonly bytes: Uint8Array;
  /** The same bytes behind the artifact's context prefix (its signature's messages). */
  readonly framed: FramedPayload;
  /** `sha256:` + SHA-256(jcs(payload)). */
  readonly hash: string;
}

export interface EntryView {
  readonly value: JsonRecord;
  readonly bytes: Uint8Array;
  /** Bare SHA-256 hex of jcs(entry): Merkle leaf and the next entry's prev_hash. */
  readonly sha256: string;
}

export interface CheckpointView {
  readonly value: JsonRecord;
  readonly shape: 'sdk' | 'spec';
  /** jcs(checkpoint without composite_sig): what its signature covers (D6). */
  readonly signedBytes: Uint8Array;
  /** The same bytes behind the AuditEvent context prefix. */
  readonly signedFramed: FramedPayload;
}

export interface V2Parts {
  readonly signed: JsonRecord;
  readonly bundle: JsonRecord;
  readonly signature: JsonRecord;
  readonly manifest: JsonRecord;
  readonly envelopes: Readonly<Record<ArtifactField, JsonRecord>>;
  readonly entries: readonly JsonRecord[];
  readonly checkpoints: readonly JsonRecord[];
}

export interface V2Context {
  readonly runtime: VerifierRuntime;
  readonly ledger: Ledger;
  readonly parts: V2Parts;
  readonly artifacts: Readonly<Record<ArtifactField, ArtifactView>>;
  readonly entries: readonly EntryView[];
  readonly checkpoints: readonly CheckpointView[];
  readonly manifestBytes: Uint8Array;
  /** The manifest's bytes behind the Bundle context prefix. */
  readonly manifestFramed: FramedPayload;
  /** `sha256:` + SHA-256(jcs(manifest)). */
  readonly manifestHash: string;
  readonly keys: KeyDirectory;
  readonly tier: TierResolution;
  /** SHA3-256 hex of every entry, computed on first use (only bundles with secondary fields need it). */
  readonly sha3Leaves: () => readonly string[];
  /**
   * The audit leaves of one family as digest bytes, and their protocol Merkle root (bare hex) over
   * every entry: each decoded or computed once, for the manifest's roots and the checkpoints'.
   */
  readonly audit: AuditLeaves;
  /** Keys whose signature halves were evaluated. */
  readonly usedKeys: Set<KeyRecord>;
  /** Kids already reported as not matching their derivation (E303 once per kid). */
  readonly reportedKids: Set<string>;
}

export interface AuditLeaves {
  digests(alg: HashAlg): readonly Uint8Array[];
  /** Root over all the entries; undefined when there are none (the schema refuses that before). */
  fullRoot(alg: HashAlg): string | undefined;
  /**
   * Root over the first `count` entries as digest bytes, 1 ≤ count ≤ entries (P128: from the full tree's
   * nodes; every entry: the full root's node). Only read, never written.
   */
  prefixRoot(alg: HashAlg, count: number): Uint8Array;
}
