// Migration 0008: the key directory, one row per (kid, subject) a verified V2 bundle bound, with its evidence.
// Implements issue 15 item 1 (keys bound from verified bundles, kept across restarts and shared by replicas).
import type { Kysely } from 'kysely';
import type { Migration } from './migration.ts';

export const keyDirectoryMigration: Migration = {
  name: '0008_key_directory',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('key_bindings')
      .addColumn('kid', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('alg', 'text', (c) => c.notNull())
      .addColumn('public_key_b64', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('evidence', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text')
      .addColumn('bound_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('key_bindings_pkey', ['kid', 'subject'])
      .execute();
  },
};
