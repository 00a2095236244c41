// Migration 0002: agent lifecycle state and its history, apart from the evictable record log.
// Implements D16 (lifecycle machine, vitality hash chain) so that D17 eviction never touches live state.
import type { Kysely } from 'kysely';
import { type Migration, type StoreDialect, withSequenceKey } from './migration.ts';

export const lifecycleMigration: Migration = {
  name: '0002_lifecycle',
  async up(db: Kysely<unknown>, dialect: StoreDialect): Promise<void> {
    await db.schema
      .createTable('lifecycle_agents')
      .addColumn('agent_id', 'text', (c) => c.primaryKey())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('last_vitality_hash', 'text')
      .addColumn('vitality_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('history_count', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();

    await withSequenceKey(db.schema.createTable('lifecycle_history'), dialect)
      .addColumn('agent_id', 'text', (c) =>
        c.notNull().references('lifecycle_agents.agent_id').onDelete('cascade'),
      )
      .addColumn('from_state', 'text')
      .addColumn('to_state', 'text', (c) => c.notNull())
      .addColumn('reason', 'text')
      .addColumn('at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('lifecycle_history_agent_seq_idx')
      .on('lifecycle_history')
      .columns(['agent_id', 'seq'])
      .execute();
  },
};
