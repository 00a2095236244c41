// Migration 0001: the /v2 record log and its per-kind counters.
// Implements D14 (one row per (kind, id), stored as received), D17 (per-kind retention, oldest first).
import type { Kysely } from 'kysely';
import { type Migration, type StoreDialect, withSequenceKey } from './migration.ts';

export const v2RecordsMigration: Migration = {
  name: '0001_v2_records',
  async up(db: Kysely<unknown>, dialect: StoreDialect): Promise<void> {
    await withSequenceKey(db.schema.createTable('v2_records'), dialect)
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      // text, not jsonb: jsonb reorders keys and drops duplicates; the record is kept as received.
      .addColumn('record_json', 'text', (c) => c.notNull())
      .addColumn('content_hash', 'text', (c) => c.notNull())
      .addColumn('stored_at', 'text', (c) => c.notNull())
      .addColumn('agent_id', 'text')
      .addUniqueConstraint('v2_records_kind_id_key', ['kind', 'id'])
      .execute();
    // Eviction walks a kind oldest-first; latestForAgent walks an agent's records newest-first.
    await db.schema
      .createIndex('v2_records_kind_seq_idx')
      .on('v2_records')
      .columns(['kind', 'seq'])
      .execute();
    await db.schema
      .createIndex('v2_records_kind_agent_seq_idx')
      .on('v2_records')
      .columns(['kind', 'agent_id', 'seq'])
      .execute();

    await db.schema
      .createTable('v2_record_kinds')
      .addColumn('kind', 'text', (c) => c.primaryKey())
      .addColumn('entry_count', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
