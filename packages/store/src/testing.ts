// Test support: opens stores on every dialect under test, each test file in its own database, cleaned up after.
// Implements docs/architecture.md §4: every store test runs on SQLite always and on PostgreSQL when a URL is set.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { StoreDialect } from './migrations/index.ts';
import { openStore, type Store, type StoreOptions } from './store.ts';

/** `TEST_DATABASE_URL`, else `DATABASE_URL`, else undefined (PostgreSQL tests are then skipped). */
export function testDatabaseUrl(): string | undefined {
  const url = process.env['TEST_DATABASE_URL'] || process.env['DATABASE_URL'];
  return url === undefined || url === '' ? undefined : url;
}

/** The dialects to run store tests on: always `sqlite`, plus `postgres` when a database URL is set. */
export function dialectsUnderTest(): StoreDialect[] {
  return testDatabaseUrl() === undefined ? ['sqlite'] : ['sqlite', 'postgres'];
}

export interface StoreTarget {
  readonly dialect: StoreDialect;
  /** Options of this test file's database: every store opened with them shares it (same file or schema). */
  readonly options: StoreOptions;
  /** Opens a store on this file's database (`extra` overrides, e.g. a small `maxEntriesPerKind`). */
  open(extra?: Partial<StoreOptions>): Promise<Store>;
  /** Options of another, empty database (a new SQLite file or PostgreSQL schema), dropped by `cleanup`. */
  fresh(label: string): StoreOptions;
  /** Closes every store this target opened, then deletes its files or drops its schemas. */
  cleanup(): Promise<void>;
}

/** `label` names the test file; it becomes part of the SQLite folder or PostgreSQL schema names. */
export async function createStoreTarget(dialect: StoreDialect, label: string): Promise<StoreTarget> {
  const safe = label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 20);
  const opened: Store[] = [];
  const open = async (options: StoreOptions): Promise<Store> => {
    const store = await openStore(options);
    opened.push(store);
    return store;
  };
  const closeAll = async (): Promise<void> => {
    await Promise.all(opened.map((store) => store.close()));
  };

  if (dialect === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), `proto-store-${safe}-`));
    const options: StoreOptions = { dataDir: dir, name: 'main' };
    let n = 0;
    return {
      dialect,
      options,
      open: (extra) => open({ ...options, ...extra }),
      fresh: (freshLabel) => ({ dataDir: dir, name: `${freshLabel.replace(/[^A-Za-z0-9_-]/g, '_')}-${++n}` }),
      cleanup: async () => {
        await closeAll();
        await rm(dir, { recursive: true, force: true });
      },
    };
  }

  const databaseUrl = testDatabaseUrl();
  if (databaseUrl === undefined) throw new Error('PostgreSQL tests need TEST_DATABASE_URL or DATABASE_URL');
  const base = `t_${safe}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const schemas = [base];
  const options: StoreOptions = { databaseUrl, pgSchema: base };
  return {
    dialect,
    options,
    open: (extra) => open({ ...options, ...extra }),
    fresh: (freshLabel) => {
      const schema =
        `${base}_${freshLabel.toLowerCase().replace(/[^a-z0-9_]/g, '_')}_${schemas.length}`.slice(0, 63);
      schemas.push(schema);
      return { databaseUrl, pgSchema: schema };
    },
    cleanup: async () => {
      await closeAll();
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

/** A clock that moves `stepMs` forward on every reading, so each stored time differs visibly. */
export function steppingClock(start = '2025-01-01T00:00:00.000Z', stepMs = 1000): () => Date {
  let now = Date.parse(start);
  return () => {
    const reading = new Date(now);
    now += stepMs;
    return reading;
  };
}

// The key directory's test passports, for services' tests that fill a real store (P410).
export { kid, passport, passportBinding } from './key-directory-testing.ts';

/**
 * PostgreSQL: resolves once some session waits for the series lock `records.lockSeries(kind, key)` takes (another
 * replica's write of that series blocked behind the caller's open transaction), read from pg_locks; throws when none
 * does within `timeoutMs`. For races that need a request held at the lock, past everything it read before it.
 */
export async function seriesLockWaiter(
  databaseUrl: string,
  kind: string,
  key: string,
  timeoutMs = 60_000,
): Promise<void> {
  const name = `v2:${kind}:${key}`;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const until = Date.now() + timeoutMs;
    for (;;) {
      // lockSeries takes pg_advisory_xact_lock(hashtext(a), hashtext(b)): classid and objid, objsubid 2.
      const waiting = await client.query(
        `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objsubid = 2
           AND classid::bigint = (hashtext($1)::bigint & 4294967295) AND objid::bigint = (hashtext($2)::bigint & 4294967295)`,
        [`${name}:a`, `${name}:b`],
      );
      if ((waiting.rowCount ?? 0) > 0) return;
      if (Date.now() > until) throw new Error(`no session waited for the series lock ${name}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await client.end();
  }
}
