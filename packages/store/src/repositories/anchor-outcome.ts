// What becomes of an anchor batch once sent (anchor.ts records the send): its inclusion and confirmations, the
// per-request chain data (a log's index and proof), or a refusal that fails it and queues its requests again.
// D19; docs/architecture.md §4.
import { type Kysely, sql } from 'kysely';
import { bulkUpdateItems, json } from './anchor-rows.ts';
import type { AnchorDatabase, BatchProgress } from './anchor-types.ts';

/** Inclusion and confirmations of a sent batch; `confirmed` also confirms its requests. */
export async function applyProgress(
  trx: Kysely<AnchorDatabase>,
  batchId: number,
  progress: BatchProgress,
  now: string,
): Promise<void> {
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
    // A confirmed batch still watched for reorganisations keeps the time it was first confirmed.
    patch['confirmed_at'] = sql`COALESCE(confirmed_at, ${now})`;
  }
  const updated = await trx
    .updateTable('anchor_batches')
    .set(patch)
    .where('id', '=', batchId)
    .where('state', 'in', progress.confirmed ? ['sending', 'sent', 'confirmed'] : ['sending', 'sent'])
    .returning('id')
    .executeTakeFirst();
  if (updated !== undefined && progress.confirmed) {
    await trx
      .updateTable('anchor_items')
      .set({ state: 'confirmed', updated_at: now })
      .where('batch_id', '=', batchId)
      .execute();
  }
}

/** Per-request chain data (transparency-log index and proof). */
export async function writeItemDetails(
  trx: Kysely<AnchorDatabase>,
  details: readonly { readonly seq: number; readonly detail: unknown }[],
  now: string,
): Promise<void> {
  if (details.length === 0) return;
  await bulkUpdateItems(
    trx,
    details.map(({ seq, detail }) => [seq, 0, json(detail)] as const),
    sql`detail_json = v.column3, updated_at = ${now}`,
  );
}

/**
 * A write refused for good: the batch and its requests fail, and each request with attempts left is queued
 * again as a new request (same bundle, same request time). Returns how many were queued again.
 */
export async function failBatch(
  trx: Kysely<AnchorDatabase>,
  batchId: number,
  error: string,
  maxAttempts: number,
  now: string,
): Promise<number> {
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
        bundle_hash_secondary: item.bundle_hash_secondary ?? null,
        secondary_leaf_index: null,
        secondary_path_json: null,
      })
      .execute();
    requeued++;
  }
  return requeued;
}
