// Migration 0010: a tlog witness's state, one row per log origin: the tree it last cosigned.
// Implements issue 18 item 2 (c2sp.org/tlog-witness; decision P49): the row is only ever moved by a
// compare-and-swap, so two requests from the same old size cannot both be cosigned.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.ts';

export const witnessMigration: Migration = {
  name: '0010_witness',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('witness_heads')
      .addColumn('origin', 'text', (c) => c.primaryKey())
      .addColumn('tree_size', 'bigint', (c) => c.notNull())
      // Lower-case hex of the 32-byte RFC 9162 root: compared as text in the swap's WHERE.
      .addColumn('root_hash', 'text', (c) => c.notNull())
      // The checkpoint as cosigned: the log's signatures the witness verified, then its cosignature.
      .addColumn('checkpoint', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
  },
};
