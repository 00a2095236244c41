// Repository of the anchor service: the durable request queue, batches claimed with SKIP LOCKED, write intents
// recorded before broadcast, per-chain send leases (a sent batch's outcome: anchor-outcome.ts). Implements D19
// and docs/architecture.md §4 (queue claims, no double write).
import { type Kysely, sql } from 'kysely';
import type { StoreDialect } from '../migrations/migration.ts';
import type { Database } from '../schema.ts';
import { inTransaction } from '../transaction.ts';
import { closeBatch } from './anchor-close.ts';
import { applyProgress, failBatch, writeItemDetails } from './anchor-outcome.ts';
import { reopenBatch, replaceWrite, shallowConfirmed } from './anchor-reorg.ts';
import { json, num, toBatch, toItem } from './anchor-rows.ts';
import type {
  AnchorBatch,
  AnchorBatchState,
  AnchorDatabase,
  AnchorItem,
  AnchorItemState,
  AnchorRepository,
  AnchorRepositoryOptions,
  BatchProgress,
  CloseBatchOptions,
  EnqueueResult,
  SentOutcome,
  WriteIntent,
} from './anchor-types.ts';

export type * from './anchor-types.ts';

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

  async enqueue(chain: string, bundleHash: string, at?: Date, secondary?: string): Promise<EnqueueResult> {
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
          bundle_hash_secondary: secondary ?? null,
          secondary_leaf_index: null,
          secondary_path_json: null,
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
      if (secondary !== undefined && live.bundle_hash_secondary === null && live.state === 'queued') {
        // Not in a batch yet: the secondary hash can still join the request's leaves.
        const updated = await trx
          .updateTable('anchor_items')
          .set({ bundle_hash_secondary: secondary, updated_at: when })
          .where('seq', '=', live.seq)
          .where('state', '=', 'queued')
          .returningAll()
          .executeTakeFirst();
        if (updated !== undefined) return { item: toItem(updated), created: false };
      }
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

  closeBatch(chain: string, options: CloseBatchOptions): Promise<AnchorBatch | undefined> {
    if (!Number.isSafeInteger(options.max) || options.max < 1)
      return Promise.reject(new RangeError('max must be a positive integer'));
    return this.#tx((trx) => closeBatch(trx, this.#dialect, chain, options, this.#now()));
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

  async markSent(batchId: number, outcome: SentOutcome = {}): Promise<void> {
    const now = this.#now();
    await this.#tx(async (trx) => {
      if (outcome.itemDetails !== undefined) await writeItemDetails(trx, outcome.itemDetails, now);
      await trx
        .updateTable('anchor_batches')
        .set({ state: 'sent', sent_at: now, updated_at: now })
        .where('id', '=', batchId)
        .where('state', '=', 'sending')
        .execute();
      if (outcome.progress !== undefined) await applyProgress(trx, batchId, outcome.progress, now);
    });
  }

  async recordProgress(batchId: number, progress: BatchProgress): Promise<void> {
    const now = this.#now();
    await this.#tx((trx) => applyProgress(trx, batchId, progress, now));
  }

  async setItemDetails(
    details: readonly { readonly seq: number; readonly detail: unknown }[],
  ): Promise<void> {
    const now = this.#now();
    await this.#tx((trx) => writeItemDetails(trx, details, now));
  }

  failBatch(batchId: number, error: string, maxAttempts: number): Promise<number> {
    const now = this.#now();
    return this.#tx((trx) => failBatch(trx, batchId, error, maxAttempts, now));
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

  shallowConfirmed(chain: string, depth: number, limit = 100): Promise<AnchorBatch[]> {
    return shallowConfirmed(this.#db, chain, depth, limit);
  }

  reopenBatch(batchId: number): Promise<boolean> {
    return this.#tx((trx) => reopenBatch(trx, batchId, this.#now()));
  }

  replaceWrite(batchId: number, intent: WriteIntent): Promise<boolean> {
    return replaceWrite(this.#db, batchId, intent, this.#now());
  }
}
