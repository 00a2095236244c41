// Builds the anchor receipt of a request: SPEC.md's shape for its chain plus D19's status, confirmations and path.
// SPEC.md "Anchor receipt" (three shapes), DECISIONS D19 (status, batch root and Merkle path), P50 (submitted).
import type { AnchorBatch, AnchorItem } from '@proto/store';
import type { ChainAdapter } from './adapters/types.ts';
import type { AnchorStatus } from './core.ts';

/** pending → submitted (the chain accepted the write) → confirmed (at the chain's depth); failed. P50. */
export function receiptStatus(item: AnchorItem, batch: AnchorBatch | undefined): AnchorStatus {
  if (item.state === 'confirmed') return 'confirmed';
  if (item.state === 'failed') return 'failed';
  if (item.state === 'batched' && batch?.state === 'sent') return 'submitted';
  return 'pending';
}

export function buildReceipt(
  adapter: ChainAdapter | undefined,
  item: AnchorItem,
  batch: AnchorBatch | undefined,
): Record<string, unknown> {
  const { fields, batchFields } = adapter?.receipt(item, batch) ?? {
    fields: { chain: item.chain },
    batchFields: true,
  };
  const receipt: Record<string, unknown> = {
    ...fields,
    bundle_hash: item.bundle_hash,
    status: receiptStatus(item, batch),
    confirmations: batchFields ? (batch?.confirmations ?? 0) : item.detail === null ? 0 : 1,
  };
  if (item.bundle_hash_secondary !== null) receipt['bundle_hash_secondary'] = item.bundle_hash_secondary;
  if (batchFields && batch !== undefined) {
    if (batch.anchored_at !== null) receipt['anchored_at'] = batch.anchored_at;
    if (item.leaf_index !== null && item.merkle_path !== null) {
      receipt['batch_root'] = batch.root;
      receipt['batch_size'] = batch.size;
      receipt['leaf_index'] = item.leaf_index;
      receipt['merkle_path'] = item.merkle_path;
      if (item.secondary_leaf_index !== null && item.secondary_merkle_path !== null) {
        receipt['leaf_index_secondary'] = item.secondary_leaf_index;
        receipt['merkle_path_secondary'] = item.secondary_merkle_path;
      }
    }
  }
  return receipt;
}
