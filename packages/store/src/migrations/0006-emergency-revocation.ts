// Migration 0006: emergency revocation tokens (the passport's emergency_revocation_token, per agent).
// Implements PROTOCOL §9.5 emergency revocation (issue 12 item 9): one token per agent, each usable once.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.ts';

export const emergencyRevocationMigration: Migration = {
  name: '0006_emergency_revocation',
  async up(db: Kysely<unknown>): Promise<void> {
    // `token` is `sha256:<hex>` of the secret, never the secret; `used_at` set once, never cleared.
    await db.schema
      .createTable('emergency_tokens')
      .addColumn('jurisdiction', 'text', (c) => c.notNull())
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('token', 'text', (c) => c.notNull())
      .addColumn('kids_json', 'text', (c) => c.notNull())
      .addColumn('human_id', 'text')
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('registered_at', 'text', (c) => c.notNull())
      .addColumn('used_at', 'text')
      .addPrimaryKeyConstraint('emergency_tokens_pkey', ['jurisdiction', 'agent_id'])
      .execute();
    // A secret is good once whichever agent it was registered for: used tokens are looked up by value.
    await db.schema
      .createIndex('emergency_tokens_token_idx')
      .on('emergency_tokens')
      .columns(['jurisdiction', 'token'])
      .execute();
  },
};
