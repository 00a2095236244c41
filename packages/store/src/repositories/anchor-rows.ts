// Row mapping and bulk updates shared by the anchor repository's queries.
import { type Kysely, type Selectable, sql } from 'kysely';
import type {
  AnchorBatch,
  AnchorBatchState,
  AnchorDatabase,
  AnchorItem,
  AnchorItemState,
  AnchorTables,
} from './anchor-types.ts';

type ItemRow = Selectable<AnchorTables['anchor_items']>;
type BatchRow = Selectable<AnchorTables['anchor_batches']>;

export const num = (v: number | string | null): number | null => (v === null ? null : Number(v));
export const json = (v: unknown): string | null => (v === undefined || v === null ? null : JSON.stringify(v));
const unjson = (v: string | null): unknown => (v === null ? null : (JSON.parse(v) as unknown));

export function toItem(row: ItemRow): AnchorItem {
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
    bundle_hash_secondary: row.bundle_hash_secondary ?? null,
    secondary_leaf_index:
      row.secondary_leaf_index === null || row.secondary_leaf_index === undefined
        ? null
        : Number(row.secondary_leaf_index),
    secondary_merkle_path: unjson(row.secondary_path_json ?? null) as string[] | null,
  };
}

export function toBatch(row: BatchRow): AnchorBatch {
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
export async function bulkUpdateItems(
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
