// Public API of @proto/store: openStore, the repositories and the Kysely table types.
// Implements docs/architecture.md §4 (one persistence API, SQLite and PostgreSQL) and D14–D17 (the /v2 records).
export type { Migration, StoreDialect } from './migrations/index.ts';
export { MIGRATIONS } from './migrations/index.ts';
export * from './repositories/anchor.ts';
export * from './repositories/key-directory.ts';
export type {
  LifecycleHistoryEntry,
  LifecycleRepository,
  LifecycleStatus,
  TransitionOptions,
  TransitionResult,
  VitalityAppendResult,
} from './repositories/lifecycle.ts';
export { COMMISSIONED, GENESIS } from './repositories/lifecycle.ts';
export * from './repositories/log.ts';
export * from './repositories/log-cosignatures.ts';
export type {
  PanelSignature,
  PutOptions,
  PutResult,
  PutStatus,
  RecordAuthorship,
  RecordRepository,
  RecordTombstone,
  StoredRecord,
} from './repositories/records.ts';
export { RecordIdRetiredError } from './repositories/records.ts';
export * from './repositories/revocation.ts';
export * from './repositories/revocation-watermarks.ts';
export * from './repositories/witness.ts';
export type {
  Database,
  LifecycleAgentsTable,
  LifecycleHistoryTable,
  SequenceColumn,
  StoreMigrationsTable,
  V2RecordKindsTable,
  V2RecordsTable,
} from './schema.ts';
export {
  isSqliteBusy,
  NodeSqliteDialect,
  type NodeSqliteDialectConfig,
} from './sqlite/node-sqlite-dialect.ts';
export {
  DEFAULT_MAX_ENTRIES_PER_KIND,
  joinedStore,
  openStore,
  type Store,
  type StoreOptions,
  type StoreTransaction,
} from './store.ts';
