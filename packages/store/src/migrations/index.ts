// The ordered list of store migrations and the runner that applies the missing ones once.
// Implements docs/architecture.md §4: versioned, idempotent migrations, safe when several processes start at once.
import { createHash } from 'node:crypto';
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../schema.ts';
import { v2RecordsMigration } from './0001-v2-records.ts';
import { lifecycleMigration } from './0002-lifecycle.ts';
import { transparencyLogMigration } from './0003-transparency-log.ts';
import { revocationMigration } from './0004-revocation.ts';
import { anchorMigration } from './0005-anchor.ts';
import { emergencyRevocationMigration } from './0006-emergency-revocation.ts';
import { revocationWatermarksMigration } from './0007-revocation-watermarks.ts';
import { keyDirectoryMigration } from './0008-key-directory.ts';
import { recordTombstonesMigration } from './0009-record-tombstones.ts';
import { witnessMigration } from './0010-witness.ts';
import { anchorSecondaryMigration } from './0011-anchor-secondary.ts';
import { keyRotationMigration } from './0012-key-rotation.ts';
import { rootAnchorPollsMigration } from './0013-root-anchor-polls.ts';
import { logCosignaturesMigration } from './0014-log-cosignatures.ts';
import { keyBindingUseMigration } from './0015-key-binding-use.ts';
import { keyRecordSubjectsMigration } from './0016-key-record-subjects.ts';
import { keyBindingCreatedMigration } from './0017-key-binding-created.ts';
import { resolutionsByDisputeMigration } from './0018-resolutions-by-dispute.ts';
import { panelSignaturesMigration } from './0019-panel-signatures.ts';
import { keyBindingsRetiredAtMigration } from './0020-key-bindings-retired-at.ts';
import { keyRetirementSequenceMigration } from './0021-key-retirement-sequence.ts';
import { keyBindingsUnnumberedRetiredMigration } from './0022-key-bindings-unnumbered-retired.ts';
import { recordKeptOnEvictionMigration } from './0023-record-kept-on-eviction.ts';
import { recordIdSkeletonsMigration } from './0024-record-id-skeletons.ts';
import { disputeHoldsMigration } from './0025-dispute-holds.ts';
import { keyPrincipalsMigration } from './0026-key-principals.ts';
import { keyRprAgentsMigration } from './0027-key-rpr-agents.ts';
import type { Migration, StoreDialect } from './migration.ts';

export type { Migration, StoreDialect } from './migration.ts';

/** Append new migrations at the end; never edit or reorder a released one. */
export const MIGRATIONS: readonly Migration[] = [
  v2RecordsMigration,
  lifecycleMigration,
  transparencyLogMigration,
  revocationMigration,
  anchorMigration,
  emergencyRevocationMigration,
  revocationWatermarksMigration,
  keyDirectoryMigration,
  recordTombstonesMigration,
  witnessMigration,
  anchorSecondaryMigration,
  keyRotationMigration,
  rootAnchorPollsMigration,
  logCosignaturesMigration,
  keyBindingUseMigration,
  keyRecordSubjectsMigration,
  keyBindingCreatedMigration,
  resolutionsByDisputeMigration,
  panelSignaturesMigration,
  keyBindingsRetiredAtMigration,
  keyRetirementSequenceMigration,
  keyBindingsUnnumberedRetiredMigration,
  recordKeptOnEvictionMigration,
  recordIdSkeletonsMigration,
  disputeHoldsMigration,
  keyPrincipalsMigration,
  keyRprAgentsMigration,
];

export interface MigrateOptions {
  readonly dialect: StoreDialect;
  /** PostgreSQL schema to create if missing (the connection's search_path already points at it). */
  readonly pgSchema?: string | undefined;
  readonly now: () => string;
  readonly migrations?: readonly Migration[];
}

/**
 * Applies every migration not yet recorded in `store_migrations`, all in one transaction, and
 * returns the names it applied (empty when the database was up to date). Concurrent callers are
 * serialised: on PostgreSQL by a transaction-scoped advisory lock taken before anything else, on
 * SQLite by the write lock BEGIN IMMEDIATE takes. The loser then finds the work done.
 */
export async function migrate(db: Kysely<Database>, options: MigrateOptions): Promise<string[]> {
  const migrations = options.migrations ?? MIGRATIONS;
  return db.transaction().execute(async (trx) => {
    if (options.dialect === 'postgres') {
      const [classId, objectId] = advisoryLockKey(options.pgSchema ?? '');
      await sql`SELECT pg_advisory_xact_lock(${classId}::int4, ${objectId}::int4)`.execute(trx);
      if (options.pgSchema !== undefined) {
        // Look first: CREATE SCHEMA needs the CREATE privilege on the database even when the schema exists.
        const found = await sql`SELECT 1 FROM pg_namespace WHERE nspname = ${options.pgSchema}`.execute(trx);
        if (found.rows.length === 0) await sql`CREATE SCHEMA ${sql.id(options.pgSchema)}`.execute(trx);
      }
    }
    await trx.schema
      .createTable('store_migrations')
      .ifNotExists()
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('applied_at', 'text', (c) => c.notNull())
      .execute();

    const done = new Set(
      (await trx.selectFrom('store_migrations').select('name').execute()).map((r) => r.name),
    );
    const known = new Set(migrations.map((m) => m.name));
    const unknown = [...done].filter((name) => !known.has(name)).sort();
    if (unknown.length > 0) {
      throw new Error(
        `database has migrations this version of @proto/store does not know (${unknown.join(', ')}); ` +
          'it was written by a newer release: upgrade instead of downgrading',
      );
    }
    const applied: string[] = [];
    for (const migration of migrations) {
      if (done.has(migration.name)) continue;
      await migration.up(asUntyped(trx), options.dialect);
      await trx
        .insertInto('store_migrations')
        .values({ name: migration.name, applied_at: options.now() })
        .execute();
      applied.push(migration.name);
    }
    return applied;
  });
}

function asUntyped(trx: Transaction<Database>): Kysely<unknown> {
  return trx as unknown as Kysely<unknown>;
}

/** Two int4 keys: a fixed namespace for this package, and one derived from the schema name. */
function advisoryLockKey(schema: string): [number, number] {
  const digest = createHash('sha256').update(`@proto/store:migrate:${schema}`).digest();
  return [0x70726f74 /* 'prot' */, digest.readInt32BE(0)];
}
