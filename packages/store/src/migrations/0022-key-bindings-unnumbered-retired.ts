// Migration 0022 (P522): 0020's index on key_bindings (retired_at, kid, subject) served P410's paging by time, which
// P472 (0021) replaced by paging by retirement number. The one scan left that names retired_at is the rolling
// upgrade's look for retirements without a number, at every refresh of a verification process's filter: PostgreSQL
// read the whole table for it (EXPLAIN: a sequential scan, the index unused), SQLite read 0020's index over every
// retirement. A partial index of the unnumbered retirements, empty once each is numbered, answers it on both.
import { type Kysely, sql } from 'kysely';
import type { Migration } from './migration.ts';

export const keyBindingsUnnumberedRetiredMigration: Migration = {
  name: '0022_key_bindings_unnumbered_retired',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('key_bindings_by_retired_at').execute();
    await db.schema
      .createIndex('key_bindings_unnumbered_retired')
      .on('key_bindings')
      .columns(['kid', 'subject'])
      .where(sql<boolean>`retired_seq IS NULL AND retired_at IS NOT NULL`)
      .execute();
  },
};
