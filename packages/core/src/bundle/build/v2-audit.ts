// V2 audit trail: entries with the dual hash chain, Merkle leaves and signed PQ checkpoints.
// PROTOCOL §2.2 (Merkle), §6.5 (entries, chains), §6.6 (checkpoints); D4, D6, D7.
import { hexDigest, prefixedHash } from '../../hash/index.ts';
import { protocolMerkleRoot } from '../../merkle/index.ts';
import { contextString, type ProtocolProfile } from '../../profile.ts';
import { entryIdentities, type Identities } from './ids.ts';
import { compositeOver, jcsBytes, prefixed, type Signer } from './sign.ts';
import type { BuildHooks, BundleShape, JsonObject } from './types.ts';

export interface AuditContext {
  readonly ids: Identities;
  readonly nonce: string;
  readonly at: string;
  readonly count: number;
  readonly dualHash: boolean;
  readonly intentPayload: JsonObject;
  readonly actionType: string;
  /** Checkpoint reference of each entry, fixed before chaining (never rewritten, PROTOCOL §6.5). */
  readonly checkpointRefs: readonly (string | null)[];
  readonly hooks: BuildHooks;
}

/** Contiguous index ranges [from, to) of the checkpoints: every `interval` entries and at the end. */
export function checkpointRanges(count: number, interval: number): Array<{ from: number; to: number }> {
  if (interval <= 0) return [];
  const ranges: Array<{ from: number; to: number }> = [];
  for (let from = 0; from < count; from += interval)
    ranges.push({ from, to: Math.min(count, from + interval) });
  return ranges;
}

const TOOLS: Readonly<Record<string, string>> = {
  browse: 'http_fetch',
  api_call: 'http_client',
  send_email: 'smtp',
  initiate_payment: 'payment_gateway',
};

/** Builds and chains the entries: prev_hash (and prev_hash_secondary) over jcs of the whole previous entry. */
export function auditEntriesV2(ctx: AuditContext): JsonObject[] {
  const intentBytes = jcsBytes(ctx.intentPayload, 'intent payload');
  const intentHash = prefixed('sha256', intentBytes);
  const intentHashSecondary = prefixed('sha3-256', intentBytes);
  const entries: JsonObject[] = [];
  for (let i = 0; i < ctx.count; i++) {
    const entry: JsonObject = {
      dcp_version: '2.0',
      audit_id: `audit-${String(i + 1).padStart(4, '0')}`,
      session_nonce: ctx.nonce,
      prev_hash: 'GENESIS',
      ...(ctx.dualHash ? { prev_hash_secondary: 'GENESIS' } : {}),
      hash_alg: ctx.dualHash ? 'sha256+sha3-256' : 'sha256',
      timestamp: ctx.at,
      ...entryIdentities(ctx.intentPayload, ctx.ids),
      intent_hash: intentHash,
      ...(ctx.dualHash ? { intent_hash_secondary: intentHashSecondary } : {}),
      policy_decision: 'approved',
      outcome: `step_${i + 1}_done`,
      evidence: { tool: TOOLS[ctx.actionType] ?? 'tool', result_ref: `result-${i + 1}`, evidence_hash: null },
      pq_checkpoint_ref: ctx.checkpointRefs[i] ?? null,
    };
    ctx.hooks.entry?.(entry, i);
    const previous = entries[i - 1];
    if (previous !== undefined) {
      const prevBytes = jcsBytes(previous, `audit entry ${i - 1}`);
      entry['prev_hash'] = prefixed('sha256', prevBytes);
      if (ctx.dualHash) entry['prev_hash_secondary'] = prefixed('sha3-256', prevBytes);
    }
    entries.push(entry);
  }
  ctx.hooks.entries?.(entries);
  return entries;
}

export interface AuditDigests {
  /** Bare hex SHA-256 / SHA3-256 of jcs(entry), the Merkle leaves (D4). */
  readonly primary: string[];
  readonly secondary: string[];
}

export function auditDigests(entries: readonly JsonObject[]): AuditDigests {
  const primary: string[] = [];
  const secondary: string[] = [];
  entries.forEach((entry, i) => {
    const bytes = jcsBytes(entry, `audit entry ${i}`);
    primary.push(hexDigest('sha256', bytes));
    secondary.push(hexDigest('sha3-256', bytes));
  });
  return { primary, secondary };
}

/** Prefixed Merkle root (PROTOCOL §2.2); the builder always has at least one leaf. */
export function merkleRoot(alg: 'sha256' | 'sha3-256', leaves: readonly string[]): string {
  const root = protocolMerkleRoot(alg, [...leaves]);
  if (root === undefined) throw new Error('bundle builder: Merkle root of an empty list');
  return prefixedHash(alg, root);
}

export interface CheckpointContext {
  readonly shape: BundleShape;
  readonly profile: ProtocolProfile;
  readonly signer: Signer;
  readonly nonce: string;
  readonly at: string;
  readonly ranges: ReadonlyArray<{ from: number; to: number }>;
  /** sdk shape: the pre-chosen `ckpt-<uuid>` ids; spec shape: unused. */
  readonly ids: readonly string[];
}

/**
 * Signed PQ checkpoints (D6), each over jcs(checkpoint without composite_sig) under AuditEvent.
 * sdk shape: event_range + Merkle root of the covered slice. spec shape: audit_state of the whole
 * trail so far (cumulative entry_count, both roots, both last hashes).
 */
export function checkpointsV2(ctx: CheckpointContext, entries: readonly JsonObject[], digests: AuditDigests) {
  const context = contextString(ctx.profile, 'AuditEvent');
  return ctx.ranges.map(({ from, to }, index) => {
    let body: JsonObject;
    if (ctx.shape === 'sdk') {
      body = {
        checkpoint_id: ctx.ids[index],
        session_nonce: ctx.nonce,
        event_range: {
          from_audit_id: entries[from]?.['audit_id'],
          to_audit_id: entries[to - 1]?.['audit_id'],
          count: to - from,
        },
        merkle_root: merkleRoot('sha256', digests.primary.slice(from, to)),
      };
    } else {
      body = {
        type: 'pq_checkpoint',
        checkpoint_index: index,
        session_nonce: ctx.nonce,
        audit_state: {
          entry_count: to,
          primary_merkle_root: merkleRoot('sha256', digests.primary.slice(0, to)),
          secondary_merkle_root: merkleRoot('sha3-256', digests.secondary.slice(0, to)),
          last_primary_hash: prefixedHash('sha256', digests.primary[to - 1] ?? ''),
          last_secondary_hash: prefixedHash('sha3-256', digests.secondary[to - 1] ?? ''),
        },
        timestamp: ctx.at,
      };
    }
    return { ...body, composite_sig: compositeOver(ctx.signer, context, body, `checkpoint ${index}`) };
  });
}
