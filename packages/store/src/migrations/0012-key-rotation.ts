// Migration 0012: key rotation in the key directory. A binding can be retired (by the evidence that retired it),
// and the newest passport seen per agent orders passports, so an older bundle cannot bring a rotated key back.
// Implements issue 15 item 5 (decision P45).
import type { Kysely } from 'kysely';
import type { Migration } from './migration.ts';

export const keyRotationMigration: Migration = {
  name: '0012_key_rotation',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('key_bindings').addColumn('retired_at', 'text').execute();
    await db.schema.alterTable('key_bindings').addColumn('retired_by', 'text').execute();
    await db.schema
      .createTable('key_passports')
      .addColumn('agent_id', 'text', (c) => c.primaryKey())
      // ISO 8601 in UTC with milliseconds (normalised on write), so text order is time order.
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('evidence', 'text', (c) => c.notNull())
      .execute();
  },
};
