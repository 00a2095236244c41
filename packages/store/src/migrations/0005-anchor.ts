// Migration 0005: the anchor service's durable queue, its batches (one root per chain transaction) and per-chain leases.
// Implements D19 (batches, receipts with paths and status) and docs/architecture.md §4 (SKIP LOCKED claims, write intents).
import { type Kysely, sql } from 'kysely';
import { type Migration, type StoreDialect, withSequenceKey } from './migration.ts';

export const anchorMigration: Migration = {
  name: '0005_anchor',
  async up(db: Kysely<unknown>, dialect: StoreDialect): Promise<void> {
    // One row per (chain, bundle hash) request. A failed request stays as history; a new request for
    // the same hash is a new row, so at most one live row per hash and chain (partial unique index).
    await withSequenceKey(db.schema.createTable('anchor_items'), dialect)
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('bundle_hash', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('requested_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('batch_id', 'bigint')
      .addColumn('leaf_index', 'integer')
      .addColumn('merkle_path_json', 'text')
      .addColumn('detail_json', 'text')
      .execute();
    await db.schema
      .createIndex('anchor_items_live_key')
      .unique()
      .on('anchor_items')
      .columns(['chain', 'bundle_hash'])
      .where(sql.ref('state'), '<>', 'failed')
      .execute();
    await db.schema
      .createIndex('anchor_items_queue_idx')
      .on('anchor_items')
      .columns(['chain', 'state', 'seq'])
      .execute();
    await db.schema
      .createIndex('anchor_items_hash_idx')
      .on('anchor_items')
      .columns(['bundle_hash', 'seq'])
      .execute();
    await db.schema
      .createIndex('anchor_items_batch_idx')
      .on('anchor_items')
      .columns(['batch_id', 'leaf_index'])
      .execute();

    // One row per chain write: the root, then the intent (signed raw transaction, its id, nonce) before
    // it is broadcast, then inclusion and confirmations.
    await withSequenceKey(db.schema.createTable('anchor_batches'), dialect, 'id')
      .addColumn('chain', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('root', 'text', (c) => c.notNull())
      .addColumn('size', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('tx_id', 'text')
      .addColumn('raw_tx', 'text')
      .addColumn('nonce', 'bigint')
      .addColumn('sent_at', 'text')
      .addColumn('block_number', 'bigint')
      .addColumn('block_hash', 'text')
      .addColumn('event_index', 'integer')
      .addColumn('confirmations', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('anchored_at', 'text')
      .addColumn('confirmed_at', 'text')
      .addColumn('error', 'text')
      .addColumn('detail_json', 'text')
      .execute();
    await db.schema
      .createIndex('anchor_batches_state_idx')
      .on('anchor_batches')
      .columns(['chain', 'state', 'id'])
      .execute();

    // Per chain: who may send (a lease, so one replica signs at a time) and the next account nonce.
    await db.schema
      .createTable('anchor_chains')
      .addColumn('chain', 'text', (c) => c.primaryKey())
      .addColumn('next_nonce', 'bigint')
      .addColumn('lease_owner', 'text')
      .addColumn('lease_until', 'text')
      .execute();
  },
};
