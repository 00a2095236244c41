// Repository of the anchor service: the durable request queue, batches claimed with SKIP LOCKED, write intents
// recorded before broadcast, per-chain send leases. Implements D19 and docs/architecture.md §4 (queue claims, no double write).
import { type Kysely, type Selectable, sql } from 'kysely';
import type { StoreDialect } from '../migrations/migration.ts';
import type { Database, SequenceColumn } from '../schema.ts';
import { inTransaction } from '../transaction.ts';

/** Kysely table types of migration 0005 (kept here so the anchor storage is one file). */
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

type AnchorDatabase = Database & AnchorTables;

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
  /** Builds the batch tree from the hashes in leaf order: its root and each leaf's path (hex). */
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

export interface AnchorRepository {
  /** Stores a request durably; returns the live request instead when the hash is already queued or anchored. */
  enqueue(chain: string, bundleHash: string, at?: Date): Promise<EnqueueResult>;
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
  /** `sending` → `sent`. */
  markSent(batchId: number): Promise<void>;
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
}

export interface AnchorRepositoryOptions {
  readonly dialect: StoreDialect;
  readonly clock: () => Date;
}

type ItemRow = Selectable<AnchorTables['anchor_items']>;
type BatchRow = Selectable<AnchorTables['anchor_batches']>;

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));
const json = (v: unknown): string | null => (v === undefined || v === null ? null : JSON.stringify(v));
const unjson = (v: string | null): unknown => (v === null ? null : (JSON.parse(v) as unknown));

function toItem(row: ItemRow): AnchorItem {
  return {
    seq: Number(row.seq),
    chain: row.chain,
    bundle_hash: row.bundle_hash,
    state: row.state as AnchorItemState,
    attempt: Number(row.attempt),
    requested_at: row.requested_at,
    updated_at: row.updated_at,
    batch_id: num(row.batch_id),
    leaf_index: row.leaf_index === null ? null : Number(row.leaf_index),
    merkle_path: unjson(row.merkle_path_json) as string[] | null,
    detail: unjson(row.detail_json),
  };
}

function toBatch(row: BatchRow): AnchorBatch {
  return {
    id: Number(row.id),
    chain: row.chain,
    state: row.state as AnchorBatchState,
    root: row.root,
    size: Number(row.size),
    created_at: row.created_at,
    updated_at: row.updated_at,
    tx_id: row.tx_id,
    raw_tx: row.raw_tx,
    nonce: num(row.nonce),
    sent_at: row.sent_at,
    block_number: num(row.block_number),
    block_hash: row.block_hash,
    event_index: row.event_index === null ? null : Number(row.event_index),
    confirmations: Number(row.confirmations),
    anchored_at: row.anchored_at,
    confirmed_at: row.confirmed_at,
    error: row.error,
    detail: unjson(row.detail_json),
  };
}

/** Rows per bulk UPDATE: 3 parameters each, far below SQLite's and PostgreSQL's limits. */
const BULK_ROWS = 500;

/**
 * One UPDATE … FROM (VALUES (seq, n, text), …) per BULK_ROWS items instead of one round trip per item: a batch of
 * 1,024 used to cost 1,024 statements twice (closing, then storing log details), the PostgreSQL bottleneck under
 * load (issue 16). VALUES columns are column1..3 on both dialects; SQLite has UPDATE … FROM since 3.33.
 */
async function bulkUpdateItems(
  trx: Kysely<AnchorDatabase>,
  rows: readonly (readonly [seq: number, n: number, text: string | null])[],
  assignments: ReturnType<typeof sql>,
): Promise<void> {
  for (let start = 0; start < rows.length; start += BULK_ROWS) {
    const values = sql.join(
      rows
        .slice(start, start + BULK_ROWS)
        .map(([seq, n, text]) => sql`(CAST(${seq} AS bigint), CAST(${n} AS integer), CAST(${text} AS text))`),
    );
    await sql`UPDATE anchor_items SET ${assignments} FROM (VALUES ${values}) AS v WHERE anchor_items.seq = v.column1`.execute(
      trx,
    );
  }
}

export class KyselyAnchorRepository implements AnchorRepository {
  readonly #db: Kysely<AnchorDatabase>;
  readonly #dialect: StoreDialect;
  readonly #clock: () => Date;

  constructor(db: Kysely<Database>, options: AnchorRepositoryOptions) {
    this.#db = db as unknown as Kysely<AnchorDatabase>;
    this.#dialect = options.dialect;
    this.#clock = options.clock;
  }

  #now(): string {
    return this.#clock().toISOString();
  }

  #tx<T>(work: (trx: Kysely<AnchorDatabase>) => Promise<T>): Promise<T> {
    return inTransaction(this.#db as unknown as Kysely<Database>, (trx) =>
      work(trx as unknown as Kysely<AnchorDatabase>),
    );
  }

  async enqueue(chain: string, bundleHash: string, at?: Date): Promise<EnqueueResult> {
    const when = (at ?? this.#clock()).toISOString();
    return this.#tx(async (trx) => {
      const inserted = await trx
        .insertInto('anchor_items')
        .values({
          chain,
          bundle_hash: bundleHash,
          state: 'queued',
          attempt: 1,
          requested_at: when,
          updated_at: when,
          batch_id: null,
          leaf_index: null,
          merkle_path_json: null,
          detail_json: null,
        })
        // The index predicate is a literal: PostgreSQL matches it against the partial index at plan time.
        .onConflict((oc) =>
          oc.columns(['chain', 'bundle_hash']).where('state', '<>', sql.lit('failed')).doNothing(),
        )
        .returningAll()
        .executeTakeFirst();
      if (inserted !== undefined) return { item: toItem(inserted), created: true };
      const live = await trx
        .selectFrom('anchor_items')
        .selectAll()
        .where('chain', '=', chain)
        .where('bundle_hash', '=', bundleHash)
        .where('state', '<>', 'failed')
        .executeTakeFirstOrThrow();
      return { item: toItem(live), created: false };
    });
  }

  async latest(bundleHash: string, chain?: string) {
    const row = await this.#db
      .selectFrom('anchor_items')
      .selectAll()
      .where('bundle_hash', '=', bundleHash)
      .$if(chain !== undefined, (qb) => qb.where('chain', '=', chain as string))
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    const item = toItem(row);
    return { item, batch: item.batch_id === null ? undefined : await this.batch(item.batch_id) };
  }

  async item(seq: number): Promise<AnchorItem | undefined> {
    const row = await this.#db
      .selectFrom('anchor_items')
      .selectAll()
      .where('seq', '=', seq)
      .executeTakeFirst();
    return row === undefined ? undefined : toItem(row);
  }

  async closeBatch(chain: string, options: CloseBatchOptions): Promise<AnchorBatch | undefined> {
    if (!Number.isSafeInteger(options.max) || options.max < 1)
      throw new RangeError('max must be a positive integer');
    return this.#tx(async (trx) => {
      const rows = await trx
        .selectFrom('anchor_items')
        .select(['seq', 'bundle_hash', 'requested_at'])
        .where('chain', '=', chain)
        .where('state', '=', 'queued')
        .$if(options.only !== undefined, (qb) => qb.where('seq', '=', options.only as number))
        .orderBy('seq')
        .limit(options.max)
        // Replicas skip each other's claimed rows instead of waiting: each closes its own disjoint batch.
        .$if(this.#dialect === 'postgres', (qb) => qb.forUpdate().skipLocked())
        .execute();
      if (rows.length === 0) return undefined;
      const oldest = rows[0] as (typeof rows)[number];
      const due =
        options.only !== undefined ||
        options.dueBefore === undefined ||
        rows.length >= options.max ||
        oldest.requested_at <= options.dueBefore;
      if (!due) return undefined;
      const tree = options.build(rows.map((r) => r.bundle_hash));
      if (tree.paths.length !== rows.length) throw new Error('batch tree does not match its leaves');
      const now = this.#now();
      const batch = await trx
        .insertInto('anchor_batches')
        .values({
          chain,
          state: 'created',
          root: tree.root,
          size: rows.length,
          created_at: now,
          updated_at: now,
          tx_id: null,
          raw_tx: null,
          nonce: null,
          sent_at: null,
          block_number: null,
          block_hash: null,
          event_index: null,
          confirmations: 0,
          anchored_at: null,
          confirmed_at: null,
          error: null,
          detail_json: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      const id = Number(batch.id);
      await bulkUpdateItems(
        trx,
        rows.map((row, i) => [Number(row.seq), i, JSON.stringify(tree.paths[i])] as const),
        sql`state = 'batched', batch_id = ${id}, leaf_index = CAST(v.column2 AS integer), merkle_path_json = v.column3, updated_at = ${now}`,
      );
      return toBatch(batch);
    });
  }

  async batch(id: number): Promise<AnchorBatch | undefined> {
    const row = await this.#db
      .selectFrom('anchor_batches')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? undefined : toBatch(row);
  }

  async batches(chain: string, states: readonly AnchorBatchState[], limit = 100): Promise<AnchorBatch[]> {
    if (states.length === 0) return [];
    const rows = await this.#db
      .selectFrom('anchor_batches')
      .selectAll()
      .where('chain', '=', chain)
      .where('state', 'in', [...states])
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(toBatch);
  }

  async batchItems(batchId: number): Promise<AnchorItem[]> {
    const rows = await this.#db
      .selectFrom('anchor_items')
      .selectAll()
      .where('batch_id', '=', batchId)
      .orderBy('leaf_index')
      .execute();
    return rows.map(toItem);
  }

  async acquireLease(chain: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = this.#clock();
    const until = new Date(now.getTime() + ttlMs).toISOString();
    return this.#tx(async (trx) => {
      await trx
        .insertInto('anchor_chains')
        .values({ chain, next_nonce: null, lease_owner: null, lease_until: null })
        .onConflict((oc) => oc.column('chain').doNothing())
        .execute();
      const row = await trx
        .updateTable('anchor_chains')
        .set({ lease_owner: owner, lease_until: until })
        .where('chain', '=', chain)
        .where((eb) =>
          eb.or([
            eb('lease_owner', 'is', null),
            eb('lease_owner', '=', owner),
            eb('lease_until', '<', now.toISOString()),
          ]),
        )
        .returning('chain')
        .executeTakeFirst();
      return row !== undefined;
    });
  }

  async releaseLease(chain: string, owner: string): Promise<void> {
    await this.#db
      .updateTable('anchor_chains')
      .set({ lease_owner: null, lease_until: null })
      .where('chain', '=', chain)
      .where('lease_owner', '=', owner)
      .execute();
  }

  async nextNonce(chain: string): Promise<number | null> {
    const row = await this.#db
      .selectFrom('anchor_chains')
      .select('next_nonce')
      .where('chain', '=', chain)
      .executeTakeFirst();
    return row === undefined ? null : num(row.next_nonce);
  }

  async recordIntent(batchId: number, intent: WriteIntent, owner: string): Promise<boolean> {
    return this.#tx(async (trx) => {
      const batch = await trx
        .selectFrom('anchor_batches')
        .select(['chain', 'state'])
        .where('id', '=', batchId)
        .$if(this.#dialect === 'postgres', (qb) => qb.forUpdate())
        .executeTakeFirst();
      if (batch === undefined || batch.state !== 'created') return false;
      const lease = await trx
        .selectFrom('anchor_chains')
        .select(['lease_owner', 'lease_until', 'next_nonce'])
        .where('chain', '=', batch.chain)
        .$if(this.#dialect === 'postgres', (qb) => qb.forUpdate())
        .executeTakeFirst();
      const now = this.#now();
      if (lease === undefined || lease.lease_owner !== owner || (lease.lease_until ?? '') <= now)
        return false;
      await trx
        .updateTable('anchor_batches')
        .set({
          state: 'sending',
          tx_id: intent.txId ?? null,
          raw_tx: intent.rawTx ?? null,
          nonce: intent.nonce ?? null,
          detail_json: json(intent.detail),
          updated_at: now,
        })
        .where('id', '=', batchId)
        .execute();
      if (intent.nonce !== undefined && intent.nonce !== null) {
        const next = Math.max(intent.nonce + 1, num(lease.next_nonce) ?? 0);
        await trx
          .updateTable('anchor_chains')
          .set({ next_nonce: next })
          .where('chain', '=', batch.chain)
          .execute();
      }
      return true;
    });
  }

  async markSent(batchId: number): Promise<void> {
    const now = this.#now();
    await this.#db
      .updateTable('anchor_batches')
      .set({ state: 'sent', sent_at: now, updated_at: now })
      .where('id', '=', batchId)
      .where('state', '=', 'sending')
      .execute();
  }

  async recordProgress(batchId: number, progress: BatchProgress): Promise<void> {
    const now = this.#now();
    await this.#tx(async (trx) => {
      const patch: Record<string, unknown> = {
        confirmations: progress.confirmations,
        updated_at: now,
      };
      if (progress.txId !== undefined) patch['tx_id'] = progress.txId;
      if (progress.blockNumber !== undefined) patch['block_number'] = progress.blockNumber;
      if (progress.blockHash !== undefined) patch['block_hash'] = progress.blockHash;
      if (progress.eventIndex !== undefined) patch['event_index'] = progress.eventIndex;
      if (progress.anchoredAt !== undefined) patch['anchored_at'] = progress.anchoredAt;
      if (progress.detail !== undefined) patch['detail_json'] = json(progress.detail);
      if (progress.confirmed) {
        patch['state'] = 'confirmed';
        patch['confirmed_at'] = now;
      }
      const updated = await trx
        .updateTable('anchor_batches')
        .set(patch)
        .where('id', '=', batchId)
        .where('state', 'in', ['sending', 'sent'])
        .returning('id')
        .executeTakeFirst();
      if (updated !== undefined && progress.confirmed) {
        await trx
          .updateTable('anchor_items')
          .set({ state: 'confirmed', updated_at: now })
          .where('batch_id', '=', batchId)
          .execute();
      }
    });
  }

  async setItemDetails(
    details: readonly { readonly seq: number; readonly detail: unknown }[],
  ): Promise<void> {
    if (details.length === 0) return;
    const now = this.#now();
    await this.#tx(async (trx) =>
      bulkUpdateItems(
        trx,
        details.map(({ seq, detail }) => [seq, 0, json(detail)] as const),
        sql`detail_json = v.column3, updated_at = ${now}`,
      ),
    );
  }

  async failBatch(batchId: number, error: string, maxAttempts: number): Promise<number> {
    const now = this.#now();
    return this.#tx(async (trx) => {
      const updated = await trx
        .updateTable('anchor_batches')
        .set({ state: 'failed', error: error.slice(0, 2000), updated_at: now })
        .where('id', '=', batchId)
        .where('state', 'in', ['created', 'sending', 'sent'])
        .returning('id')
        .executeTakeFirst();
      if (updated === undefined) return 0;
      const items = await trx
        .updateTable('anchor_items')
        .set({ state: 'failed', updated_at: now })
        .where('batch_id', '=', batchId)
        .returningAll()
        .execute();
      let requeued = 0;
      for (const item of items) {
        if (Number(item.attempt) >= maxAttempts) continue;
        await trx
          .insertInto('anchor_items')
          .values({
            chain: item.chain,
            bundle_hash: item.bundle_hash,
            state: 'queued',
            attempt: Number(item.attempt) + 1,
            requested_at: item.requested_at,
            updated_at: now,
            batch_id: null,
            leaf_index: null,
            merkle_path_json: null,
            detail_json: null,
          })
          .execute();
        requeued++;
      }
      return requeued;
    });
  }

  async openCounts() {
    const rows = await this.#db
      .selectFrom('anchor_items')
      .select((eb) => ['chain', 'state', eb.fn.countAll<number | string>().as('count')])
      .where('state', 'in', ['queued', 'batched'])
      .groupBy(['chain', 'state'])
      .execute();
    return rows.map((r) => ({ chain: r.chain, state: r.state as AnchorItemState, count: Number(r.count) }));
  }

  async backlog(chain: string): Promise<number> {
    const queued = await this.#db
      .selectFrom('anchor_items')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('chain', '=', chain)
      .where('state', '=', 'queued')
      .executeTakeFirst();
    const unsent = await this.#db
      .selectFrom('anchor_batches')
      .select((eb) => eb.fn.sum<number | string | null>('size').as('size'))
      .where('chain', '=', chain)
      .where('state', 'in', ['created', 'sending'])
      .executeTakeFirst();
    return Number(queued?.count ?? 0) + Number(unsent?.size ?? 0);
  }

  async oldestPending(chain: string): Promise<string | undefined> {
    const row = await this.#db
      .selectFrom('anchor_items')
      .select((eb) => eb.fn.min<string | null>('requested_at').as('oldest'))
      .where('chain', '=', chain)
      .where('state', 'in', ['queued', 'batched'])
      .executeTakeFirst();
    return row?.oldest ?? undefined;
  }
}
