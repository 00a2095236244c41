// Migration 0026 (P560): each agent's current principal as the key directory learns it, the human of the newest RPR
// (by its `issued_at`) of a verified bundle that speaks for both the agent and the human (P45's continuity). A former
// principal's RPR binding keys stay bound to the agent (nothing retires them), so the bindings alone cannot tell the
// current principal from every human ever bound. No back-fill: the RPR's time was never stored, so an agent's row is
// written at the next verified bundle of it.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.ts';

export const keyPrincipalsMigration: Migration = {
  name: '0026_key_principals',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('key_principals')
      .addColumn('agent_id', 'text', (c) => c.primaryKey())
      .addColumn('human_id', 'text', (c) => c.notNull())
      // ISO 8601 in UTC with milliseconds (normalised on write), so text order is time order, as key_passports'.
      .addColumn('issued_at', 'text', (c) => c.notNull())
      .addColumn('evidence', 'text', (c) => c.notNull())
      .execute();
  },
};
