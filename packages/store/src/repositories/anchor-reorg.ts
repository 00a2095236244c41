// What a real chain does to a written batch after it was sent: its block is reorganised away, or its fee is bumped
// (BIP 125 replacement). Kept apart from the queue and send path of anchor.ts. Issue 18 item 5.
import type { Kysely } from 'kysely';
import { json, toBatch } from './anchor-rows.ts';
import type { AnchorBatch, AnchorDatabase, WriteIntent } from './anchor-types.ts';

export async function shallowConfirmed(
  db: Kysely<AnchorDatabase>,
  chain: string,
  depth: number,
  limit: number,
): Promise<AnchorBatch[]> {
  const rows = await db
    .selectFrom('anchor_batches')
    .selectAll()
    .where('chain', '=', chain)
    .where('state', '=', 'confirmed')
    .where('confirmations', '<', depth)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(toBatch);
}

export async function reopenBatch(
  trx: Kysely<AnchorDatabase>,
  batchId: number,
  now: string,
): Promise<boolean> {
  const updated = await trx
    .updateTable('anchor_batches')
    .set({
      // `sending`: the stored bytes go out again through the same path as after a crash (the worker's reconcile).
      state: 'sending',
      confirmations: 0,
      block_number: null,
      block_hash: null,
      event_index: null,
      anchored_at: null,
      confirmed_at: null,
      updated_at: now,
    })
    .where('id', '=', batchId)
    .where('state', 'in', ['sent', 'confirmed'])
    .returning('id')
    .executeTakeFirst();
  if (updated === undefined) return false;
  await trx
    .updateTable('anchor_items')
    .set({ state: 'batched', updated_at: now })
    .where('batch_id', '=', batchId)
    .where('state', '=', 'confirmed')
    .execute();
  return true;
}

export async function replaceWrite(
  db: Kysely<AnchorDatabase>,
  batchId: number,
  intent: WriteIntent,
  now: string,
): Promise<boolean> {
  const updated = await db
    .updateTable('anchor_batches')
    .set({
      tx_id: intent.txId ?? null,
      raw_tx: intent.rawTx ?? null,
      detail_json: json(intent.detail),
      sent_at: now,
      updated_at: now,
    })
    .where('id', '=', batchId)
    .where('state', '=', 'sent')
    .returning('id')
    .executeTakeFirst();
  return updated !== undefined;
}
