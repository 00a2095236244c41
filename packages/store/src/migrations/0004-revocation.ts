// Migration 0004: revocation entries, the issued (signed) lists, attestation issuance and issuer keys.
// Implements D20 (permanent entries, monotonic list_number surviving restarts) and D21 (issued attestations).
import type { Kysely } from 'kysely';
import { type Migration, type StoreDialect, withSequenceKey } from './migration.ts';

export const revocationMigration: Migration = {
  name: '0004_revocation',
  async up(db: Kysely<unknown>, dialect: StoreDialect): Promise<void> {
    // One row per jurisdiction: the latest list_number issued. Issuers lock it, so numbers never repeat.
    await db.schema
      .createTable('revocation_state')
      .addColumn('jurisdiction', 'text', (c) => c.primaryKey())
      .addColumn('list_number', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();

    // Permanent: nothing deletes from this table. The reason text is never stored, only its hash.
    await withSequenceKey(db.schema.createTable('revocation_entries'), dialect)
      .addColumn('jurisdiction', 'text', (c) => c.notNull())
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('revoked_at', 'text', (c) => c.notNull())
      .addColumn('reason_hash', 'text', (c) => c.notNull())
      .addColumn('recorded_at', 'text', (c) => c.notNull())
      .addColumn('first_list_number', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('revocation_entries_jurisdiction_agent_key', ['jurisdiction', 'agent_id'])
      .execute();

    // The signed lists as served, byte for byte (text, not jsonb); the latest few are kept.
    await db.schema
      .createTable('revocation_lists')
      .addColumn('jurisdiction', 'text', (c) => c.notNull())
      .addColumn('list_number', 'bigint', (c) => c.notNull())
      .addColumn('list_json', 'text', (c) => c.notNull())
      .addColumn('issued_at', 'text', (c) => c.notNull())
      .addColumn('next_update', 'text', (c) => c.notNull())
      .addColumn('entry_count', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('revocation_lists_pkey', ['jurisdiction', 'list_number'])
      .execute();

    await withSequenceKey(db.schema.createTable('attestation_issuance'), dialect)
      .addColumn('jurisdiction', 'text', (c) => c.notNull())
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('rpr_hash', 'text', (c) => c.notNull())
      .addColumn('key_id', 'text', (c) => c.notNull())
      .addColumn('attested_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text')
      .addColumn('attestation_json', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('attestation_issuance_agent_seq_idx')
      .on('attestation_issuance')
      .columns(['jurisdiction', 'agent_id', 'seq'])
      .execute();

    // Every signing key a jurisdiction has used, with the time it was first used (validity windows).
    await db.schema
      .createTable('issuer_keys')
      .addColumn('jurisdiction', 'text', (c) => c.notNull())
      .addColumn('purpose', 'text', (c) => c.notNull())
      .addColumn('key_id', 'text', (c) => c.notNull())
      .addColumn('public_key_b64', 'text', (c) => c.notNull())
      .addColumn('first_used_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('issuer_keys_pkey', ['jurisdiction', 'purpose', 'key_id'])
      .execute();
  },
};
