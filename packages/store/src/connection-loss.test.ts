// A PostgreSQL connection that dies while a query or transaction holds it must fail that work, never the
// process: the soak (bench/soak) saw the anchor and verification services exit when PostgreSQL stopped.
// docs/architecture.md §4 (durable stores).
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStoreTarget, type StoreTarget, testDatabaseUrl } from './testing.ts';

const url = testDatabaseUrl();

describe.skipIf(url === undefined)('a PostgreSQL connection lost while in use', () => {
  let target: StoreTarget;
  beforeAll(async () => {
    target = await createStoreTarget('postgres', 'connection-loss');
  });
  afterAll(async () => {
    await target.cleanup();
  });

  it('fails the transaction that held it and leaves the process and the store working', async () => {
    const reported: Error[] = [];
    const store = await target.open({ onPoolError: (error) => reported.push(error) });
    const killer = new pg.Client({ connectionString: url });
    await killer.connect();
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      const outcome = store.db
        .transaction()
        .execute(async (trx) => {
          const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx);
          // The server ends this very connection while the transaction holds it, idle between queries.
          await killer.query('SELECT pg_terminate_backend($1)', [rows[0]?.pid]);
          await new Promise((resolve) => setTimeout(resolve, 300));
          await sql`SELECT 1`.execute(trx);
        })
        .then(
          () => 'committed',
          () => 'failed',
        );
      expect(await outcome).toBe('failed');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(uncaught).toEqual([]);
      // The pool replaces the dead connection: the store answers again.
      const { rows } = await sql<{ one: number }>`SELECT 1 AS one`.execute(store.db);
      expect(rows[0]?.one).toBe(1);
      expect(reported.length).toBeGreaterThan(0);
    } finally {
      process.off('uncaughtException', onUncaught);
      await killer.end();
    }
  });
});
