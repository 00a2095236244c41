// Migration 0011: a request may anchor the bundle's SHA3-256 hash beside its SHA-256 one (SPEC.md, V2 anchoring).
// The secondary hash is a leaf of the same batch tree; its index and path sit on the request's row. Issue 18, P51.
import type { Kysely } from 'kysely';
import type { Migration } from './migration.ts';

export const anchorSecondaryMigration: Migration = {
  name: '0011_anchor_secondary',
  async up(db: Kysely<unknown>): Promise<void> {
    // Nullable columns: rows written before this migration anchor only their SHA-256 hash and read as before.
    await db.schema.alterTable('anchor_items').addColumn('bundle_hash_secondary', 'text').execute();
    await db.schema.alterTable('anchor_items').addColumn('secondary_leaf_index', 'integer').execute();
    await db.schema.alterTable('anchor_items').addColumn('secondary_path_json', 'text').execute();
  },
};
