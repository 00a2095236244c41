// Migration 0009: tombstones of evicted /v2 records, so that an id never changes meaning after retention.
// Implements issue 15 item 4 (the evicted record's hash is kept; a different record under its id is refused).
import type { Kysely } from 'kysely';
import type { Migration } from './migration.ts';

export const recordTombstonesMigration: Migration = {
  name: '0009_record_tombstones',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('v2_record_tombstones')
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('content_hash', 'text', (c) => c.notNull())
      .addColumn('stored_at', 'text', (c) => c.notNull())
      .addColumn('evicted_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('v2_record_tombstones_pkey', ['kind', 'id'])
      .execute();
    // How a stored record's write was authorised, by content: GET shows it beside the record.
    await db.schema
      .createTable('v2_record_signatures')
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('content_hash', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('kid', 'text')
      .addColumn('evidence', 'text')
      .addColumn('recorded_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('v2_record_signatures_pkey', ['kind', 'content_hash'])
      .execute();
  },
};
