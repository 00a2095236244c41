// Kysely dialect over Node 24's built-in `node:sqlite` (DatabaseSync): the embedded default store, no native addon.
// Implements docs/architecture.md §4 (WAL, synchronous=FULL, busy timeout, foreign keys; racing writes as one locked transaction).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  SelectQueryNode,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type TransactionSettings,
} from 'kysely';

export interface NodeSqliteDialectConfig {
  /** Database file path, or `:memory:`. Parent folders are created. */
  readonly file: string;
  /**
   * How long a writer waits for another connection's write lock before failing, in ms (default 5000).
   * Applied as SQLite's busy_timeout and as the deadline of the non-blocking BEGIN IMMEDIATE retry.
   */
  readonly busyTimeoutMs?: number;
  /** Prepared statements kept per connection (default 256). */
  readonly statementCacheSize?: number;
}

export class NodeSqliteDialect implements Dialect {
  readonly #config: NodeSqliteDialectConfig;

  constructor(config: NodeSqliteDialectConfig) {
    this.#config = config;
  }

  createDriver(): Driver {
    return new NodeSqliteDriver(this.#config);
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }

  // biome-ignore lint/suspicious/noExplicitAny: the Dialect interface fixes this signature
  createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}

/** SQLite result code for "database is locked" (the primary code; extended codes share its low byte). */
const SQLITE_BUSY = 5;

export function isSqliteBusy(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const errcode = (error as { errcode?: unknown }).errcode;
  return typeof errcode === 'number' && (errcode & 0xff) === SQLITE_BUSY;
}

class NodeSqliteDriver implements Driver {
  readonly #config: NodeSqliteDialectConfig;
  readonly #mutex = new Mutex();
  #database: DatabaseSync | undefined;
  #connection: NodeSqliteConnection | undefined;

  constructor(config: NodeSqliteDialectConfig) {
    this.#config = config;
  }

  async init(): Promise<void> {
    const { file } = this.#config;
    const busyTimeoutMs = this.#config.busyTimeoutMs ?? 5000;
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    const database = new DatabaseSync(file, { enableForeignKeyConstraints: true });
    try {
      // busy_timeout first: switching to WAL needs a lock another process may briefly hold.
      database.exec(`PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
      database.exec('PRAGMA journal_mode = WAL');
      database.exec('PRAGMA synchronous = FULL');
      database.exec('PRAGMA foreign_keys = ON');
    } catch (error) {
      database.close();
      throw error;
    }
    this.#database = database;
    this.#connection = new NodeSqliteConnection(
      database,
      busyTimeoutMs,
      this.#config.statementCacheSize ?? 256,
    );
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    // One connection per driver: callers queue here, so a transaction owns it until it ends.
    await this.#mutex.lock();
    if (this.#connection === undefined) {
      this.#mutex.unlock();
      throw new Error('SQLite store is closed');
    }
    return this.#connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    // SQLite transactions are always serializable; the isolation level needs no statement.
    // A read-only transaction may start deferred; every other one takes the write lock up front
    // (BEGIN IMMEDIATE), so read-then-write sequences cannot interleave with another connection.
    await (connection as NodeSqliteConnection).begin(settings.accessMode === 'read only');
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as NodeSqliteConnection).exec('COMMIT');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as NodeSqliteConnection).rollbackIfOpen();
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    (connection as NodeSqliteConnection).exec(`SAVEPOINT ${quoteIdentifier(name)}`);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    (connection as NodeSqliteConnection).exec(`ROLLBACK TO SAVEPOINT ${quoteIdentifier(name)}`);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    (connection as NodeSqliteConnection).exec(`RELEASE SAVEPOINT ${quoteIdentifier(name)}`);
  }

  async releaseConnection(): Promise<void> {
    this.#mutex.unlock();
  }

  async destroy(): Promise<void> {
    if (this.#database === undefined) return;
    // Wait for the query or transaction in flight, then close for good.
    await this.#mutex.lock();
    try {
      this.#connection = undefined;
      const database = this.#database;
      this.#database = undefined;
      database?.close();
    } finally {
      this.#mutex.unlock();
    }
  }
}

interface CachedStatement {
  readonly statement: StatementSync;
  /** True when the statement returns rows (SELECT, PRAGMA, … RETURNING). */
  readonly reader: boolean;
}

class NodeSqliteConnection implements DatabaseConnection {
  readonly #database: DatabaseSync;
  readonly #busyTimeoutMs: number;
  readonly #cacheSize: number;
  readonly #statements = new Map<string, CachedStatement>();

  constructor(database: DatabaseSync, busyTimeoutMs: number, cacheSize: number) {
    this.#database = database;
    this.#busyTimeoutMs = busyTimeoutMs;
    this.#cacheSize = cacheSize;
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const { statement, reader } = this.#prepare(compiledQuery.sql);
    const parameters = toSqliteParameters(compiledQuery.parameters);
    if (reader) {
      return { rows: statement.all(...parameters) as R[] };
    }
    const { changes, lastInsertRowid } = statement.run(...parameters);
    return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(compiledQuery.query)) {
      throw new Error('the node:sqlite driver streams SELECT queries only');
    }
    // A fresh statement: a cached one could be reset by another query while this iterator is open.
    const statement = this.#database.prepare(compiledQuery.sql);
    for (const row of statement.iterate(...toSqliteParameters(compiledQuery.parameters))) {
      yield { rows: [row as R] };
    }
  }

  exec(sql: string): void {
    this.#database.exec(sql);
  }

  async begin(readOnly: boolean): Promise<void> {
    if (readOnly) {
      this.#database.exec('BEGIN DEFERRED');
      return;
    }
    // Waiting inside SQLite's busy handler would block the event loop, and the lock holder may be
    // another Store in this very process that needs the loop to commit. So try without waiting and
    // back off asynchronously until the busy timeout is spent.
    const deadline = Date.now() + this.#busyTimeoutMs;
    let delayMs = 1;
    for (;;) {
      this.#database.exec('PRAGMA busy_timeout = 0');
      try {
        this.#database.exec('BEGIN IMMEDIATE');
        return;
      } catch (error) {
        if (!isSqliteBusy(error) || Date.now() >= deadline) throw error;
      } finally {
        this.#database.exec(`PRAGMA busy_timeout = ${Math.trunc(this.#busyTimeoutMs)}`);
      }
      await sleep(delayMs + Math.random() * delayMs);
      delayMs = Math.min(delayMs * 2, 25);
    }
  }

  rollbackIfOpen(): void {
    // SQLite rolls back by itself after some errors; a second ROLLBACK would throw and hide the first error.
    if (this.#database.isTransaction) this.#database.exec('ROLLBACK');
  }

  #prepare(sql: string): CachedStatement {
    const cached = this.#statements.get(sql);
    if (cached !== undefined) {
      // Re-insert to keep the map in least-recently-used order.
      this.#statements.delete(sql);
      this.#statements.set(sql, cached);
      return cached;
    }
    const statement = this.#database.prepare(sql);
    const entry: CachedStatement = { statement, reader: statement.columns().length > 0 };
    if (this.#cacheSize > 0) {
      if (this.#statements.size >= this.#cacheSize) {
        const oldest = this.#statements.keys().next();
        if (oldest.done !== true) this.#statements.delete(oldest.value);
      }
      this.#statements.set(sql, entry);
    }
    return entry;
  }
}

function toSqliteParameters(parameters: readonly unknown[]): SQLInputValue[] {
  return parameters.map((value) => {
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (value === undefined) return null;
    return value as SQLInputValue;
  });
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A FIFO lock: whoever holds it owns the single connection. */
class Mutex {
  #tail: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;

  async lock(): Promise<void> {
    const previous = this.#tail;
    let release!: () => void;
    this.#tail = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    this.#release = release;
  }

  unlock(): void {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }
}
