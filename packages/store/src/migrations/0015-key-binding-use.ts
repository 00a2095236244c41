// Migration 0015: what the key directory needs to prune bindings nobody uses (P174). `authorised_at` is set once
// a binding authorises a /v2 write and never cleared (such a binding is never pruned); `seen_at` is the last time a
// verified bundle proved it. Bindings stored before this migration may have authorised writes already, and which
// cannot be told without reading every record, so they count as having authorised: they are kept.
import { type Kysely, sql } from 'kysely';
import type { Migration } from './migration.ts';

export const keyBindingUseMigration: Migration = {
  name: '0015_key_binding_use',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('key_bindings').addColumn('authorised_at', 'text').execute();
    await db.schema.alterTable('key_bindings').addColumn('seen_at', 'text').execute();
    await sql`UPDATE key_bindings SET authorised_at = bound_at, seen_at = bound_at`.execute(db);
    // The pruner's scan: never-used bindings, oldest proof first.
    await db.schema
      .createIndex('key_bindings_unused_by_seen')
      .on('key_bindings')
      .columns(['authorised_at', 'seen_at'])
      .execute();
  },
};
