// Migration 0019: who of an arbitration panel signed a resolution (P297), so an M-of-N panel is counted by distinct
// appointed arbitrators, one key each, not by the entries a resolution lists. Rows exist only where a quorum over one
// was in force; the resolution stored under the dispute's id (P240) is the first signer's copy, byte for byte.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.ts';

export const panelSignaturesMigration: Migration = {
  name: '0019_panel_signatures',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('v2_panel_signatures')
      .addColumn('dispute_id', 'text', (c) => c.notNull())
      // sha256 of the resolution's signed payload (the record without composite_sig): what every member signed.
      .addColumn('payload_hash', 'text', (c) => c.notNull())
      .addColumn('arbitrator_id', 'text', (c) => c.notNull())
      .addColumn('kid', 'text', (c) => c.notNull())
      .addColumn('recorded_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('v2_panel_signatures_pkey', ['dispute_id', 'payload_hash', 'arbitrator_id'])
      .execute();
    // One key speaks for one member: a key bound to two members is counted once.
    await db.schema
      .createIndex('v2_panel_signatures_kid')
      .on('v2_panel_signatures')
      .columns(['dispute_id', 'payload_hash', 'kid'])
      .unique()
      .execute();
  },
};
