// Migration 0014: witness cosignatures of the log's own checkpoints (c2sp.org/tlog-witness), kept so that a
// restarted log still publishes its cosigned checkpoint and knows what each witness last cosigned.
// Implements issue 18 item 2, the log side (decisions P56, P57).
import type { Kysely } from 'kysely';
import type { Migration, StoreDialect } from './migration.ts';

export const logCosignaturesMigration: Migration = {
  name: '0014_log_cosignatures',
  async up(db: Kysely<unknown>, dialect: StoreDialect): Promise<void> {
    const counter = dialect === 'postgres' ? 'bigint' : 'integer';
    // One verified cosignature line per (checkpoint size, witness); the checkpoint itself is tlog_checkpoints'.
    await db.schema
      .createTable('tlog_cosignatures')
      .addColumn('tree_size', counter, (c) => c.notNull())
      // `<key name>+<8 hex key ID>`: which witness key signed (a rotated witness key is another witness).
      .addColumn('witness', 'text', (c) => c.notNull())
      .addColumn('line', 'text', (c) => c.notNull())
      .addColumn('stored_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('tlog_cosignatures_pkey', ['tree_size', 'witness'])
      .execute();
    // "What did this witness last cosign": the old size of the next add-checkpoint request.
    await db.schema
      .createIndex('tlog_cosignatures_by_witness')
      .on('tlog_cosignatures')
      .columns(['witness', 'tree_size'])
      .execute();
  },
};
