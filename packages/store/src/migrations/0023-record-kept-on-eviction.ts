// Migration 0023: what a /v2 record keeps of itself once retention evicts it (P508, P509). A dispute's filing names
// its parties, and an appealed decision its signed time and its place in the store's order: what later writes of the
// dispute are judged by. The writer says what to keep (`kept_json`, beside the record); eviction moves it, and the
// record's `seq`, to the tombstone. Rows stored before this migration keep nothing (NULL), as before.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.ts';

export const recordKeptOnEvictionMigration: Migration = {
  name: '0023_record_kept_on_eviction',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('v2_records').addColumn('kept_json', 'text').execute();
    await db.schema.alterTable('v2_record_tombstones').addColumn('kept_json', 'text').execute();
    await db.schema.alterTable('v2_record_tombstones').addColumn('seq', 'bigint').execute();
  },
};
