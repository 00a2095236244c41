// Tests of the node:sqlite Kysely dialect: pragmas, statement kinds, write locks between connections, savepoints.
// Covers docs/architecture.md §4 (WAL, synchronous=FULL, busy timeout, foreign keys; no native addon; locked writes).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Kysely, sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isSqliteBusy, NodeSqliteDialect, type NodeSqliteDialectConfig } from './node-sqlite-dialect.ts';

interface TestDatabase {
  items: { id: number; label: string };
  parents: { id: number };
  children: { id: number; parent_id: number };
}

describe('NodeSqliteDialect', () => {
  let dir: string;
  let file: string;
  const opened: Kysely<TestDatabase>[] = [];

  function connect(config: Partial<NodeSqliteDialectConfig> = {}): Kysely<TestDatabase> {
    const db = new Kysely<TestDatabase>({ dialect: new NodeSqliteDialect({ file, ...config }) });
    opened.push(db);
    return db;
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proto-sqlite-dialect-'));
    file = join(dir, 'nested', 'folder', 'dialect.sqlite');
    const db = connect();
    await db.schema
      .createTable('items')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('label', 'text')
      .execute();
    await db.schema
      .createTable('parents')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .execute();
    await db.schema
      .createTable('children')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('parent_id', 'integer', (c) => c.notNull().references('parents.id'))
      .execute();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((db) => db.destroy()));
    const db = connect();
    await db.deleteFrom('items').execute();
  });
  afterAll(async () => {
    await Promise.all(opened.splice(0).map((db) => db.destroy()));
    await rm(dir, { recursive: true, force: true });
  });

  it('opens a durable database: WAL, synchronous=FULL, busy timeout, foreign keys', async () => {
    const db = connect({ busyTimeoutMs: 1234 });
    const pragma = async (name: string): Promise<unknown> =>
      Object.values((await sql.raw<Record<string, unknown>>(`PRAGMA ${name}`).execute(db)).rows[0] ?? {})[0];
    expect(await pragma('journal_mode')).toBe('wal');
    expect(await pragma('synchronous')).toBe(2); // FULL
    expect(await pragma('foreign_keys')).toBe(1);
    expect(await pragma('busy_timeout')).toBe(1234);
    // A write transaction lowers the busy timeout while it takes the lock and must put it back.
    await db.transaction().execute((trx) => trx.insertInto('items').values({ id: 1, label: 'a' }).execute());
    expect(await pragma('busy_timeout')).toBe(1234);
    await expect(db.insertInto('children').values({ id: 1, parent_id: 99 }).execute()).rejects.toThrow(
      /FOREIGN KEY/,
    );
  });

  it('answers rows for readers (SELECT, RETURNING, PRAGMA) and counts for writers', async () => {
    const db = connect();
    const inserted = await db.insertInto('items').values({ id: 10, label: 'ten' }).executeTakeFirst();
    expect(inserted.numInsertedOrUpdatedRows).toBe(1n);
    expect(inserted.insertId).toBe(10n);
    const returned = await db
      .insertInto('items')
      .values({ id: 11, label: 'eleven' })
      .returning(['id', 'label'])
      .execute();
    expect(returned).toEqual([{ id: 11, label: 'eleven' }]);
    const updated = await db.updateTable('items').set({ label: 'x' }).executeTakeFirst();
    expect(updated.numUpdatedRows).toBe(2n);
    expect(await db.selectFrom('items').select('label').orderBy('id').execute()).toEqual([
      { label: 'x' },
      { label: 'x' },
    ]);
    const streamed: number[] = [];
    for await (const row of db.selectFrom('items').select('id').orderBy('id').stream()) streamed.push(row.id);
    expect(streamed).toEqual([10, 11]);
  });

  it('rolls back a failed transaction completely and stays usable', async () => {
    const db = connect();
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ id: 20, label: 'kept?' }).execute();
        await trx.insertInto('items').values({ id: 20, label: 'duplicate' }).execute();
      }),
    ).rejects.toThrow(/UNIQUE/);
    expect(await db.selectFrom('items').selectAll().execute()).toEqual([]);
    await db.insertInto('items').values({ id: 21, label: 'after' }).execute();
    expect(await db.selectFrom('items').select('id').execute()).toEqual([{ id: 21 }]);
  });

  it('supports savepoints inside a transaction', async () => {
    const db = connect();
    const trx = await db.startTransaction().execute();
    await trx.insertInto('items').values({ id: 30, label: 'outer' }).execute();
    const inner = await trx.savepoint('inner').execute();
    await inner.insertInto('items').values({ id: 31, label: 'inner' }).execute();
    await inner.rollbackToSavepoint('inner').execute();
    await inner.releaseSavepoint('inner').execute();
    await trx.commit().execute();
    expect(await db.selectFrom('items').select('id').execute()).toEqual([{ id: 30 }]);
  });

  it('makes a second connection wait for the write lock without blocking the event loop', async () => {
    const first = connect();
    const second = connect();
    const events: string[] = [];
    const holder = await first.startTransaction().execute();
    await holder.insertInto('items').values({ id: 40, label: 'first' }).execute();

    const waiting = second.transaction().execute(async (trx) => {
      events.push('second got the lock');
      await trx.insertInto('items').values({ id: 41, label: 'second' }).execute();
    });
    // The loop keeps turning while the second writer waits; the holder can still finish its work.
    for (let i = 0; i < 20; i++) await nextTurn();
    await holder.updateTable('items').set({ label: 'first, updated' }).where('id', '=', 40).execute();
    events.push('first commits');
    await holder.commit().execute();
    await waiting;

    expect(events).toEqual(['first commits', 'second got the lock']);
    expect(await second.selectFrom('items').selectAll().orderBy('id').execute()).toEqual([
      { id: 40, label: 'first, updated' },
      { id: 41, label: 'second' },
    ]);
  });

  it('gives up with SQLITE_BUSY once the busy timeout is spent, leaving the holder unharmed', async () => {
    const first = connect();
    const impatient = connect({ busyTimeoutMs: 20 });
    const holder = await first.startTransaction().execute();
    await holder.insertInto('items').values({ id: 50, label: 'held' }).execute();
    const failure = await impatient
      .transaction()
      .execute((trx) => trx.insertInto('items').values({ id: 51, label: 'never' }).execute())
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(isSqliteBusy(failure)).toBe(true);
    await holder.commit().execute();
    expect(await impatient.selectFrom('items').select('id').execute()).toEqual([{ id: 50 }]);
  });

  it('refuses queries once destroyed', async () => {
    const db = connect();
    await db.selectFrom('items').selectAll().execute();
    await db.destroy();
    await expect(db.selectFrom('items').selectAll().execute()).rejects.toThrow();
  });
});
