// Types of the anchor service's storage: the tables of migration 0005 and the repository's contract.
// docs/architecture.md §4 (queue claims, no double write).

import type { StoreDialect } from '../migrations/migration.ts';
import type { Database, SequenceColumn } from '../schema.ts';

/** Kysely table types of migration 0005 . */
export interface AnchorTables {
  anchor_items: {
    seq: SequenceColumn;
    chain: string;
    bundle_hash: string;
    state: string;
    attempt: number;
    requested_at: string;
    updated_at: string;
    batch_id: number | string | null;
    leaf_index: number | null;
    merkle_path_json: string | null;
    detail_json: string | null;
    /** Migration 0011 (P51): the SHA3-256 hash anchored with this request, its leaf and path. */
    bundle_hash_secondary: string | null;
    secondary_leaf_index: number | null;
    secondary_path_json: string | null;
  };
  anchor_batches: {
    id: SequenceColumn;
    chain: string;
    state: string;
    root: string;
    size: number;
    created_at: string;
    updated_at: string;
    tx_id: string | null;
    raw_tx: string | null;
    nonce: number | string | null;
    sent_at: string | null;
    block_number: number | string | null;
    block_hash: string | null;
    event_index: number | null;
    confirmations: number;
    anchored_at: string | null;
    confirmed_at: string | null;
    error: string | null;
    detail_json: string | null;
  };
  anchor_chains: {
    chain: string;
    next_nonce: number | string | null;
    lease_owner: string | null;
    lease_until: string | null;
  };
}

export type AnchorDatabase = Database & AnchorTables;

/** `queued` → `batched` (in a batch) → `confirmed`; or `failed` with its batch. */
export type AnchorItemState = 'queued' | 'batched' | 'confirmed' | 'failed';

/**
 * `created` (root fixed, nothing signed) → `sending` (intent stored: signed raw transaction and its id) →
 * `sent` (broadcast accepted or found on chain) → `confirmed`; or `failed` (definitively not written).
 */
export type AnchorBatchState = 'created' | 'sending' | 'sent' | 'confirmed' | 'failed';

export interface AnchorItem {
  readonly seq: number;
  readonly chain: string;
  readonly bundle_hash: string;
  readonly state: AnchorItemState;
  /** 1 for a first request; a failed batch's items are queued again with attempt + 1. */
  readonly attempt: number;
  readonly requested_at: string;
  readonly updated_at: string;
  readonly batch_id: number | null;
  readonly leaf_index: number | null;
  /** RFC 9162 path of the item's leaf to its batch root (hex), once batched. */
  readonly merkle_path: readonly string[] | null;
  /** Chain-specific data of this item (for example its transparency-log index and proof). */
  readonly detail: unknown;
  /** `sha3-256:<64 hex>` anchored beside `bundle_hash` as a leaf of the same batch (P51), or null. */
  readonly bundle_hash_secondary: string | null;
  readonly secondary_leaf_index: number | null;
  readonly secondary_merkle_path: readonly string[] | null;
}

export interface AnchorBatch {
  readonly id: number;
  readonly chain: string;
  readonly state: AnchorBatchState;
  /** The value written on chain: RFC 9162 root of the batch's leaves, 64 hex. */
  readonly root: string;
  readonly size: number;
  readonly created_at: string;
  readonly updated_at: string;
  readonly tx_id: string | null;
  /** The signed transaction exactly as broadcast (hex), kept so a restart re-sends the same bytes. */
  readonly raw_tx: string | null;
  readonly nonce: number | null;
  readonly sent_at: string | null;
  readonly block_number: number | null;
  readonly block_hash: string | null;
  readonly event_index: number | null;
  readonly confirmations: number;
  readonly anchored_at: string | null;
  readonly confirmed_at: string | null;
  readonly error: string | null;
  readonly detail: unknown;
}

export interface EnqueueResult {
  readonly item: AnchorItem;
  /** false when a live request for this hash and chain already existed (it is returned instead). */
  readonly created: boolean;
}

export interface CloseBatchOptions {
  /** Most leaves in one batch (BATCH_MAX). */
  readonly max: number;
  /**
   * Close only when the oldest claimable request was made at or before this ISO time (BATCH_INTERVAL_MS
   * ago) or `max` requests are waiting. Absent: close whatever is waiting.
   */
  readonly dueBefore?: string;
  /** Close a batch of exactly this request (ANCHOR_MODE=individual). */
  readonly only?: number;
  /**
   * Builds the batch tree from the anchored hashes in leaf order (each request's bundle hash, then its secondary
   * hash when it has one): its root and each leaf's path (hex).
   */
  readonly build: (bundleHashes: readonly string[]) => {
    readonly root: string;
    readonly paths: readonly (readonly string[])[];
  };
}

/** What is written before a broadcast: enough to find the transaction on chain or send the same bytes again. */
export interface WriteIntent {
  readonly txId?: string | null;
  readonly rawTx?: string | null;
  readonly nonce?: number | null;
  readonly detail?: unknown;
}

export interface BatchProgress {
  readonly confirmations: number;
  readonly confirmed: boolean;
  readonly txId?: string | null;
  readonly blockNumber?: number | null;
  readonly blockHash?: string | null;
  readonly eventIndex?: number | null;
  readonly anchoredAt?: string | null;
  readonly detail?: unknown;
}

/** What a broadcast answered, recorded with the batch's move to `sent`. */
export interface SentOutcome {
  readonly itemDetails?: readonly { readonly seq: number; readonly detail: unknown }[] | undefined;
  readonly progress?: BatchProgress | undefined;
}

export interface AnchorRepository {
  /**
   * Stores a request durably; returns the live request instead when the hash is already queued or anchored. A
   * `secondary` (SHA3-256) hash is stored with a new request, or added to a live one still queued without one.
   */
  enqueue(chain: string, bundleHash: string, at?: Date, secondary?: string): Promise<EnqueueResult>;
  /** The newest request for a hash (on one chain, or any), with its batch. */
  latest(
    bundleHash: string,
    chain?: string,
  ): Promise<{ readonly item: AnchorItem; readonly batch: AnchorBatch | undefined } | undefined>;
  item(seq: number): Promise<AnchorItem | undefined>;
  /**
   * Claims waiting requests of a chain (PostgreSQL: FOR UPDATE SKIP LOCKED, so replicas take disjoint
   * sets) and turns them into one batch with its root, when due. Returns the batch, or undefined.
   */
  closeBatch(chain: string, options: CloseBatchOptions): Promise<AnchorBatch | undefined>;
  batch(id: number): Promise<AnchorBatch | undefined>;
  batches(chain: string, states: readonly AnchorBatchState[], limit?: number): Promise<AnchorBatch[]>;
  /** A batch's requests in leaf order. */
  batchItems(batchId: number): Promise<AnchorItem[]>;
  /** Takes or renews the chain's send lease; false while another owner holds an unexpired one. */
  acquireLease(chain: string, owner: string, ttlMs: number): Promise<boolean>;
  releaseLease(chain: string, owner: string): Promise<void>;
  /** The next account nonce recorded for the chain (null before the first intent). */
  nextNonce(chain: string): Promise<number | null>;
  /**
   * `created` → `sending` with the intent, only while `owner` holds the chain's lease; advances the
   * chain's next nonce. false (nothing written) when the lease was lost or the batch moved on.
   */
  recordIntent(batchId: number, intent: WriteIntent, owner: string): Promise<boolean>;
  /**
   * `sending` → `sent`, in one transaction with what the broadcast answered: the requests' chain data and
   * the batch's progress (a crash between separate writes left a log batch `sent` and never confirmed).
   */
  markSent(batchId: number, outcome?: SentOutcome): Promise<void>;
  /** Inclusion and confirmations of a sent batch; `confirmed` also confirms its requests. */
  recordProgress(batchId: number, progress: BatchProgress): Promise<void>;
  /** Per-request chain data (transparency-log index and proof). */
  setItemDetails(details: readonly { readonly seq: number; readonly detail: unknown }[]): Promise<void>;
  /**
   * Marks a batch definitively failed. Its requests fail with it; those below `maxAttempts` are queued
   * again (attempt + 1, original request time). Returns how many were queued again.
   */
  failBatch(batchId: number, error: string, maxAttempts: number): Promise<number>;
  /** Requests per state and chain that are not finished (queued, batched). */
  openCounts(): Promise<
    { readonly chain: string; readonly state: AnchorItemState; readonly count: number }[]
  >;
  /**
   * Requests of a chain not yet handed to it: queued, or in a batch not yet sent (`created`, `sending`).
   * What ANCHOR_MAX_BACKLOG bounds (issue 16).
   */
  backlog(chain: string): Promise<number>;
  /** Request time (ISO) of the oldest request of a chain that is not finished (queued or batched), if any. */
  oldestPending(chain: string): Promise<string | undefined>;
  /**
   * Confirmed batches of a chain still shallower than `depth` confirmations: the ones a reorganisation can
   * still undo, so the worker keeps checking them (issue 18, ANCHOR_REORG_WATCH_DEPTH).
   */
  shallowConfirmed(chain: string, depth: number, limit?: number): Promise<AnchorBatch[]>;
  /**
   * A batch whose transaction left the best chain: `confirmed`/`sent` → `sending` with no block (the worker sends the
   * stored bytes again, or finds them on chain), its requests back from `confirmed` to `batched` (their receipts
   * read pending again). false when it was in another state.
   */
  reopenBatch(batchId: number): Promise<boolean>;
  /**
   * Replaces the stored write of a `sent` batch (Bitcoin fee bump, BIP 125): new transaction id, bytes and
   * detail, `sent_at` now (the next bump is timed from the replacement). false when it was in another state.
   */
  replaceWrite(batchId: number, intent: WriteIntent): Promise<boolean>;
}

export interface AnchorRepositoryOptions {
  readonly dialect: StoreDialect;
  readonly clock: () => Date;
}
