// Opens the store: SQLite (node:sqlite, embedded default) or PostgreSQL (pg Pool), migrated, with its repositories.
// Implements docs/architecture.md §4 (two dialects behind one API) and D17 (STORE_MAX_ENTRIES, default 10,000).
import { join } from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type pg from 'pg';
import { migrate, type StoreDialect } from './migrations/index.ts';
import { type AnchorRepository, KyselyAnchorRepository } from './repositories/anchor.ts';
import { type KeyDirectoryRepository, KyselyKeyDirectoryRepository } from './repositories/key-directory.ts';
import { KyselyLifecycleRepository, type LifecycleRepository } from './repositories/lifecycle.ts';
import { KyselyLogRepository, type LogRepository } from './repositories/log.ts';
import {
  KyselyLogCosignatureRepository,
  type LogCosignatureRepository,
} from './repositories/log-cosignatures.ts';
import { KyselyRecordRepository, type RecordRepository } from './repositories/records.ts';
import { KyselyRevocationRepository, type RevocationRepository } from './repositories/revocation.ts';
import {
  KyselyRevocationWatermarkRepository,
  type RevocationWatermarkRepository,
} from './repositories/revocation-watermarks.ts';
import { KyselyWitnessRepository, type WitnessRepository } from './repositories/witness.ts';
import type { Database } from './schema.ts';
import { NodeSqliteDialect } from './sqlite/node-sqlite-dialect.ts';

export interface StoreOptions {
  /** `postgres://…` (or `postgresql://…`): use PostgreSQL. Absent: SQLite under `dataDir`. */
  databaseUrl?: string | undefined;
  /** Folder of the embedded SQLite database (created if missing). */
  dataDir?: string | undefined;
  /** SQLite file; default `<dataDir>/<name>.sqlite`. `:memory:` for a throw-away database. */
  sqliteFile?: string | undefined;
  /** Name of the SQLite file, usually the service's name (default `store`). */
  name?: string | undefined;
  /** PostgreSQL schema to use (created if missing) — tests use a unique schema per test file for isolation. */
  pgSchema?: string | undefined;
  /** Records kept per record kind, oldest evicted first (default 10000, D17). */
  maxEntriesPerKind?: number | undefined;
  clock?: (() => Date) | undefined;
  /** PostgreSQL pool size (default 10). */
  pgPoolMax?: number | undefined;
  /** How long a SQLite writer waits for another process's write lock, in ms (default 5000). */
  sqliteBusyTimeoutMs?: number | undefined;
  /** Errors of idle PostgreSQL connections (the pool drops the connection; default: ignored). */
  onPoolError?: ((error: Error) => void) | undefined;
}

/** The repositories, each bound to the store's database or, in `Store.transaction`, to one transaction. */
export interface StoreTransaction {
  readonly anchor: AnchorRepository;
  readonly records: RecordRepository;
  readonly lifecycle: LifecycleRepository;
  readonly log: LogRepository;
  readonly logCosignatures: LogCosignatureRepository;
  readonly revocation: RevocationRepository;
  /** A verifier's highest accepted revocation list_number per source (issue 12 row k). */
  readonly revocationWatermarks: RevocationWatermarkRepository;
  /** The key directory (issue 15): kids bound to agents and humans by verified bundles. */
  readonly keys: KeyDirectoryRepository;
  /** A tlog witness's last cosigned head per log origin (issue 18 item 2, P49). */
  readonly witness: WitnessRepository;
}

export interface Store extends StoreTransaction {
  readonly dialect: StoreDialect;
  readonly db: Kysely<Database>;
  /**
   * Runs several repository calls as one transaction (e.g. advance the vitality chain and store the
   * report): all of them commit, or none if `work` throws.
   */
  transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  /** Waits for work in flight, then releases the database. Idempotent. */
  close(): Promise<void>;
}

/**
 * `store` seen from inside one of its transactions `tx`: the repositories are the transaction's, and `transaction`
 * joins it instead of opening another, so code written against a Store runs as part of the caller's transaction (all
 * of it commits, or none). `db`, `ping` and `close` stay the store's own.
 */
export function joinedStore(store: Store, tx: StoreTransaction): Store {
  return { ...store, ...tx, transaction: (work) => work(tx) };
}

export const DEFAULT_MAX_ENTRIES_PER_KIND = 10_000;

// Lower case only: the name goes unquoted into search_path, where PostgreSQL folds it to lower case.
const PG_SCHEMA_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

export async function openStore(options: StoreOptions): Promise<Store> {
  const clock = options.clock ?? (() => new Date());
  const maxEntriesPerKind = options.maxEntriesPerKind ?? DEFAULT_MAX_ENTRIES_PER_KIND;
  if (!Number.isSafeInteger(maxEntriesPerKind) || maxEntriesPerKind < 1) {
    throw new RangeError(
      `maxEntriesPerKind must be a positive integer, got ${String(options.maxEntriesPerKind)}`,
    );
  }

  let dialect: StoreDialect;
  let db: Kysely<Database>;
  if (options.databaseUrl !== undefined && options.databaseUrl !== '') {
    if (!/^postgres(ql)?:\/\//.test(options.databaseUrl)) {
      throw new Error('databaseUrl must be a postgres:// or postgresql:// URL (leave it unset for SQLite)');
    }
    if (options.pgSchema !== undefined && !PG_SCHEMA_PATTERN.test(options.pgSchema)) {
      throw new Error(
        'pgSchema must be a plain lower-case identifier: a-z, 0-9, underscore, at most 63 characters',
      );
    }
    dialect = 'postgres';
    // The driver is loaded only for PostgreSQL: a SQLite store never needs it (P80).
    const { default: driver } = await import('pg');
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: createPool(driver, options) }) });
  } else {
    dialect = 'sqlite';
    db = new Kysely<Database>({
      dialect: new NodeSqliteDialect({
        file: sqliteFile(options),
        ...(options.sqliteBusyTimeoutMs !== undefined ? { busyTimeoutMs: options.sqliteBusyTimeoutMs } : {}),
      }),
    });
  }

  try {
    await migrate(db, { dialect, pgSchema: options.pgSchema, now: () => clock().toISOString() });
  } catch (error) {
    await db.destroy().catch(() => undefined);
    throw error;
  }
  return kyselyStore(db, dialect, { maxEntriesPerKind, clock });
}

function sqliteFile(options: StoreOptions): string {
  if (options.sqliteFile !== undefined && options.sqliteFile !== '') return options.sqliteFile;
  if (options.dataDir === undefined || options.dataDir === '') {
    throw new Error('set databaseUrl (PostgreSQL) or dataDir / sqliteFile (SQLite)');
  }
  const name = options.name ?? 'store';
  if (!NAME_PATTERN.test(name))
    throw new Error(`store name ${JSON.stringify(name)} is not a plain file name`);
  return join(options.dataDir, `${name}.sqlite`);
}

function createPool(driver: typeof pg, options: StoreOptions): pg.Pool {
  const pool = new driver.Pool({
    connectionString: options.databaseUrl,
    max: options.pgPoolMax ?? 10,
    // Every connection resolves unqualified table names in the store's schema.
    ...(options.pgSchema !== undefined ? { options: `-c search_path=${options.pgSchema}` } : {}),
  });
  // Without a listener an idle connection's error (server restart, network) would crash the process.
  pool.on('error', (error) => options.onPoolError?.(error));
  // A connection that dies while checked out (a query or transaction holds it) emits 'error' on its client,
  // where the pool no longer listens: without this listener the process exits. The work that held it
  // fails through its own query, and the pool drops the broken client when it is released.
  pool.on('connect', (client) => {
    client.on('error', (error) => options.onPoolError?.(error));
  });
  return pool;
}

interface RepositoryOptions {
  readonly maxEntriesPerKind: number;
  readonly clock: () => Date;
}

/** A store over `db`: one list of repositories, built on the database and again on each transaction. */
function kyselyStore(db: Kysely<Database>, dialect: StoreDialect, options: RepositoryOptions): Store {
  const { clock } = options;
  const repositoriesOn = (handle: Kysely<Database>): StoreTransaction => ({
    records: new KyselyRecordRepository(handle, { ...options, dialect }),
    lifecycle: new KyselyLifecycleRepository(handle, { dialect, clock }),
    log: new KyselyLogRepository(handle, { dialect, clock }),
    logCosignatures: new KyselyLogCosignatureRepository(handle, { clock }),
    revocation: new KyselyRevocationRepository(handle, { dialect, clock }),
    anchor: new KyselyAnchorRepository(handle, { dialect, clock }),
    revocationWatermarks: new KyselyRevocationWatermarkRepository(handle, { clock }),
    keys: new KyselyKeyDirectoryRepository(handle, { dialect, clock }),
    witness: new KyselyWitnessRepository(handle, { clock }),
  });
  let closed: Promise<void> | undefined;
  return {
    dialect,
    db,
    ...repositoriesOn(db),
    transaction: (work) =>
      db
        .transaction()
        .setIsolationLevel('read committed')
        .execute((trx) => work(repositoriesOn(trx))),
    async ping() {
      await sql`SELECT 1`.execute(db);
    },
    close() {
      closed ??= db.destroy();
      return closed;
    },
  };
}
