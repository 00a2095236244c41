// The shape of one versioned schema migration and the dialect names migrations branch on.
// Implements docs/architecture.md §4: `packages/store` owns every table, created by ordered, recorded migrations.
import type { CreateTableBuilder, Kysely } from 'kysely';

export type StoreDialect = 'sqlite' | 'postgres';

export interface Migration {
  /** Sortable, never renamed once released: `NNNN_what_it_adds`. */
  readonly name: string;
  /**
   * Applies the change. Runs inside the migration transaction (DDL is transactional on both dialects),
   * typed against no particular schema because the schema is what it changes.
   */
  up(db: Kysely<unknown>, dialect: StoreDialect): Promise<void>;
}

/**
 * Adds an auto-assigned, strictly increasing `seq` primary key: INTEGER AUTOINCREMENT on SQLite
 * (never reuses the numbers of evicted rows) and BIGINT identity on PostgreSQL.
 */
export function withSequenceKey<T extends string>(
  table: CreateTableBuilder<T, never>,
  dialect: StoreDialect,
  column = 'seq',
): CreateTableBuilder<T, never> {
  return dialect === 'postgres'
    ? table.addColumn(column, 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    : table.addColumn(column, 'integer', (c) => c.primaryKey().autoIncrement());
}
