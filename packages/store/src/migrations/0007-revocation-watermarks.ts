// Migration 0007: the highest revocation list_number a verifier has accepted from each list source.
// Implements issue 12 row k / D20: a restart or a new replica refuses a list older than one already seen.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.ts';

export const revocationWatermarksMigration: Migration = {
  name: '0007_revocation_watermarks',
  async up(db: Kysely<unknown>): Promise<void> {
    // One row per source (the verifier's own name for it); list_number only ever goes up.
    await db.schema
      .createTable('revocation_list_watermarks')
      .addColumn('source', 'text', (c) => c.primaryKey())
      .addColumn('jurisdiction', 'text', (c) => c.notNull())
      .addColumn('list_number', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
  },
};
