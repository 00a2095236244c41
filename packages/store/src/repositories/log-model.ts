// Types of the transparency log's repository and the node-map helpers its callers share.
// Implements D18 and docs/architecture.md §4; the repository itself is in log.ts.
import type { SubtreeCoordinate, SubtreeReader } from '@proto/core';
import type { StoreDialect } from '../migrations/migration.ts';

/** Kysely table types of migration 0003 (kept here so the log's storage is one file). */
export interface LogTables {
  tlog_head: { id: number; tree_size: number | string; root: Uint8Array; updated_at: string };
  tlog_leaves: { leaf_index: number | string; leaf_data: Uint8Array; sequenced_at: string };
  tlog_nodes: { level: number; node_index: number | string; hash: Uint8Array };
  tlog_checkpoints: { tree_size: number | string; root: Uint8Array; note: string; signed_at: string };
  tlog_meta: { name: string; value: string };
  tlog_root_anchors: {
    tree_size: number | string;
    root: Uint8Array;
    status: string;
    attempts: number;
    requested_at: string;
    updated_at: string;
    chain: string | null;
    tx_id: string | null;
    block_height: number | string | null;
    receipt_json: string | null;
    error: string | null;
    polls: number;
    next_poll_at: string | null;
  };
}

export interface LogHead {
  readonly size: number;
  /** RFC 9162 root of the first `size` leaves (SHA-256 of nothing when empty). */
  readonly root: Uint8Array;
  /** When the last batch was sequenced (ISO 8601). */
  readonly updatedAt: string;
}

export interface LogAppendResult {
  readonly index: number;
  /** When the leaf was sequenced (its first time, for a leaf already in the log). */
  readonly timestamp: string;
  /** false when the leaf was already in the log, or earlier in the same batch. */
  readonly created: boolean;
}

export interface LogBatchResult {
  /** One per input, in input order. */
  readonly results: readonly LogAppendResult[];
  /** The head after the batch (unchanged when every leaf was already there). */
  readonly head: LogHead;
  /** New leaves written by this batch. */
  readonly appended: number;
}

export interface LogEntry {
  readonly index: number;
  readonly data: Uint8Array;
  readonly timestamp: string;
}

export interface LogCheckpointRecord {
  readonly size: number;
  readonly root: Uint8Array;
  /** The signed note, served verbatim. */
  readonly note: string;
  readonly signedAt: string;
}

export type RootAnchorStatus = 'requesting' | 'pending' | 'confirmed' | 'failed';

export interface RootAnchorRecord {
  readonly size: number;
  readonly root: Uint8Array;
  readonly status: RootAnchorStatus;
  readonly attempts: number;
  readonly requestedAt: string;
  readonly updatedAt: string;
  readonly chain: string | null;
  readonly txId: string | null;
  readonly blockHeight: number | null;
  /** The anchor service's answer as JSON text. */
  readonly receiptJson: string | null;
  readonly error: string | null;
  /** Receipt polls since the last change (P63). */
  readonly polls: number;
  /** When the receipt may be asked for next (null: at once). */
  readonly nextPollAt: string | null;
}

export interface RootAnchorOutcome {
  readonly status: Exclude<RootAnchorStatus, 'requesting'>;
  readonly chain?: string | null;
  readonly txId?: string | null;
  readonly blockHeight?: number | null;
  readonly receiptJson?: string | null;
  readonly error?: string | null;
}

export interface LogRepository {
  /** The current tree head (committed). */
  head(): Promise<LogHead>;
  /**
   * Sequences a batch in one transaction that holds the head's lock: leaves already in the log (or
   * repeated in the batch) keep their index, new ones get the next indices, and their leaves, the
   * perfect-subtree nodes they complete and the new head commit together. Nothing is acknowledged
   * before the commit.
   */
  append(leaves: readonly Uint8Array[], at?: Date): Promise<LogBatchResult>;
  /** Stored perfect-subtree hashes by coordinate (absent ones are missing from the map). */
  nodes(coordinates: readonly SubtreeCoordinate[]): Promise<Map<string, Uint8Array>>;
  /** Leaves [start, end), in order. */
  entries(start: number, end: number): Promise<LogEntry[]>;
  findEntry(data: Uint8Array): Promise<LogEntry | undefined>;
  latestCheckpoint(): Promise<LogCheckpointRecord | undefined>;
  checkpoint(size: number): Promise<LogCheckpointRecord | undefined>;
  /** Stored checkpoints with size in [fromSize, toSize], oldest first (at most `limit`). */
  checkpoints(fromSize: number, toSize: number, limit?: number): Promise<LogCheckpointRecord[]>;
  /**
   * Stores a signed checkpoint unless one exists for its size: `exists` when the stored one has the
   * same root, `conflict` (nothing written) when it has another: a size is never signed with two roots.
   */
  saveCheckpoint(record: LogCheckpointRecord): Promise<'created' | 'exists' | 'conflict'>;
  meta(name: string): Promise<string | undefined>;
  /** Stores `value` unless the name has one; returns the stored value either way. */
  initMeta(name: string, value: string): Promise<string>;
  setMeta(name: string, value: string): Promise<void>;
  /**
   * Takes the right to anchor the root of `size`: true when no one has asked yet, the last attempt
   * failed, or a claim is older than `staleBefore` (its holder died). One winner per size.
   */
  claimRootAnchor(size: number, root: Uint8Array, at: Date, staleBefore: Date): Promise<boolean>;
  finishRootAnchor(size: number, outcome: RootAnchorOutcome, at: Date): Promise<void>;
  /** The newest anchor of any status (`settledOnly`: pending or confirmed only). */
  latestRootAnchor(options?: { readonly settledOnly?: boolean }): Promise<RootAnchorRecord | undefined>;
  /**
   * Pending anchors whose next poll is due at `now`, oldest (smallest size) first (P63); with `confirmedPolls` > 0 then confirmed ones due that
   * have had fewer polls since they were confirmed (a reorganisation may still undo them, P392), up to `limit` in all.
   */
  dueRootAnchors(
    now: Date,
    limit: number,
    options?: { readonly confirmedPolls?: number },
  ): Promise<RootAnchorRecord[]>;
  /** Counts a poll that learnt nothing new and sets when to ask next; only while the anchor is pending or confirmed. */
  deferRootAnchorPoll(size: number, nextPollAt: Date): Promise<void>;
  /** Anchors of any status with size >= `fromSize`, smallest first, at most `limit` (P461's sweep pages through them). */
  rootAnchors(fromSize: number, limit: number): Promise<RootAnchorRecord[]>;
  /** Deletes, and returns, the anchor of `size` (P461: of a checkpoint no witness quorum cosigned). */
  deleteRootAnchor(size: number): Promise<RootAnchorRecord | undefined>;
}

export interface LogRepositoryOptions {
  readonly dialect: StoreDialect;
  readonly clock: () => Date;
}

/** Map key of a node coordinate in `LogRepository.nodes` results. */
export function logNodeKey(level: number, index: number): string {
  return `${level}/${index}`;
}

/** A SubtreeReader over a node map; a missing node is a broken store and throws. */
export function logNodeReader(...maps: ReadonlyMap<string, Uint8Array>[]): SubtreeReader {
  return (level, index) => {
    const key = logNodeKey(level, index);
    for (const map of maps) {
      const hash = map.get(key);
      if (hash !== undefined) return hash;
    }
    throw new Error(`transparency log node ${key} is missing from the store`);
  };
}
