// Closing a batch: claim waiting requests (SKIP LOCKED on PostgreSQL), build the tree over their leaves (each bundle
// hash, then its SHA3-256 secondary when it has one, P51), store the batch and every leaf's path. D19; §4.
import { type Kysely, sql } from 'kysely';
import type { StoreDialect } from '../migrations/migration.ts';
import { bulkUpdateItems, toBatch } from './anchor-rows.ts';
import type { AnchorBatch, AnchorDatabase, CloseBatchOptions } from './anchor-types.ts';

export async function closeBatch(
  trx: Kysely<AnchorDatabase>,
  dialect: StoreDialect,
  chain: string,
  options: CloseBatchOptions,
  now: string,
): Promise<AnchorBatch | undefined> {
  const rows = await trx
    .selectFrom('anchor_items')
    .select(['seq', 'bundle_hash', 'requested_at', 'bundle_hash_secondary'])
    .where('chain', '=', chain)
    .where('state', '=', 'queued')
    .$if(options.only !== undefined, (qb) => qb.where('seq', '=', options.only as number))
    .orderBy('seq')
    .limit(options.max)
    // Replicas skip each other's claimed rows instead of waiting: each closes its own disjoint batch.
    .$if(dialect === 'postgres', (qb) => qb.forUpdate().skipLocked())
    .execute();
  if (rows.length === 0) return undefined;
  const oldest = rows[0] as (typeof rows)[number];
  const due =
    options.only !== undefined ||
    options.dueBefore === undefined ||
    rows.length >= options.max ||
    oldest.requested_at <= options.dueBefore;
  if (!due) return undefined;
  // Leaves: each request's bundle hash, followed by its secondary hash when it anchors one (P51).
  const leaves: string[] = [];
  const primaryLeaf: number[] = [];
  const secondaryLeaf: (number | undefined)[] = [];
  for (const row of rows) {
    primaryLeaf.push(leaves.push(row.bundle_hash) - 1);
    secondaryLeaf.push(
      row.bundle_hash_secondary === null ? undefined : leaves.push(row.bundle_hash_secondary) - 1,
    );
  }
  const tree = options.build(leaves);
  if (tree.paths.length !== leaves.length) throw new Error('batch tree does not match its leaves');
  const batch = await trx
    .insertInto('anchor_batches')
    .values({
      chain,
      state: 'created',
      root: tree.root,
      size: leaves.length,
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
    rows.map((row, i) => {
      const leaf = primaryLeaf[i] as number;
      return [Number(row.seq), leaf, JSON.stringify(tree.paths[leaf])] as const;
    }),
    sql`state = 'batched', batch_id = ${id}, leaf_index = CAST(v.column2 AS integer), merkle_path_json = v.column3, updated_at = ${now}`,
  );
  const seconds = rows.flatMap((row, i) => {
    const leaf = secondaryLeaf[i];
    return leaf === undefined ? [] : [[Number(row.seq), leaf, JSON.stringify(tree.paths[leaf])] as const];
  });
  if (seconds.length > 0)
    await bulkUpdateItems(
      trx,
      seconds,
      sql`secondary_leaf_index = CAST(v.column2 AS integer), secondary_path_json = v.column3`,
    );
  return toBatch(batch);
}
