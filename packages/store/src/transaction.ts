// Runs repository work in one transaction, joining the caller's transaction when there is one.
// Implements docs/architecture.md §4: state changes that race are single transactions with the right locking.
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

/**
 * The repositories' locking (row locks, ON CONFLICT waits) is written for READ COMMITTED on
 * PostgreSQL, so it is asked for explicitly rather than inherited from the server's default.
 * SQLite transactions are serializable whatever is asked; its driver takes the write lock up front.
 */
export function inTransaction<T, DB = Database>(
  db: Kysely<DB>,
  work: (trx: Kysely<DB>) => Promise<T>,
): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().setIsolationLevel('read committed').execute(work);
}
