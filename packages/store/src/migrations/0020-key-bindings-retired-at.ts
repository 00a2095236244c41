// Migration 0020: the key directory's retirements by time (P410), so a verification process reads the kids retired
// since its last look, in pages, without scanning the table: its in-memory filter of retired kids (P282 at no cost).
import type { Kysely } from 'kysely';
import type { Migration } from './migration.ts';

export const keyBindingsRetiredAtMigration: Migration = {
  name: '0020_key_bindings_retired_at',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createIndex('key_bindings_by_retired_at')
      .on('key_bindings')
      .columns(['retired_at', 'kid', 'subject'])
      .execute();
  },
};
