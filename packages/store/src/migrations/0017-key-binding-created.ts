// Migration 0017: a passport key's own `created_at` beside its binding (P230), so the key directory applies the
// operator's maximum key age as it stands when a key is looked up, not only as it stood when the key was bound
// (P204 capped the binding's expiry then). Bindings stored before this migration have none and keep that cap.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.ts';

export const keyBindingCreatedMigration: Migration = {
  name: '0017_key_binding_created',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('key_bindings').addColumn('key_created_at', 'text').execute();
  },
};
