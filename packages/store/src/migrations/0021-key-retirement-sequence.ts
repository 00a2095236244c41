// Migration 0021: each retirement in the key directory gets a number from one counter (P472), so a verification
// process reads "the retirements after number n" instead of "after time t less 60 s": a retirement committed late,
// or dated by a clock far behind another replica's, is still read at the next refresh, not only at restart.
// Retirements made before this migration all get number 0 (a process's first fill reads every retirement).
import { type Kysely, sql } from 'kysely';
import type { Migration } from './migration.ts';

export const keyRetirementSequenceMigration: Migration = {
  name: '0021_key_retirement_sequence',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('key_bindings').addColumn('retired_seq', 'bigint').execute();
    await sql`UPDATE key_bindings SET retired_seq = 0 WHERE retired_at IS NOT NULL`.execute(db);
    await db.schema
      .createIndex('key_bindings_by_retired_seq')
      .on('key_bindings')
      .columns(['retired_seq', 'kid', 'subject'])
      .execute();
    // One row: the last number given. A retiring transaction takes it with UPDATE … RETURNING, which holds the
    // row until it commits, so numbers become visible in the order they were given (none appears before a lower one).
    await db.schema
      .createTable('key_retirement_counter')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('last_seq', 'bigint', (c) => c.notNull())
      .execute();
    await sql`INSERT INTO key_retirement_counter (id, last_seq) VALUES (1, 0)`.execute(db);
  },
};
