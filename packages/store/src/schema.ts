// Kysely table types of every table the store owns; one interface per table, gathered in `Database`.
// Implements docs/architecture.md §4 (the store owns every table) and D14–D17 (records, ids, lifecycle, retention).
import type { ColumnType, Generated } from 'kysely';

/**
 * Sequence numbers: INTEGER on SQLite, BIGINT identity on PostgreSQL (which `pg` returns as a string).
 * Repositories convert them with `Number()`.
 */
export type SequenceColumn = ColumnType<number | string, never, never>;

/** Versioned migrations applied to this database (see `migrations/`). */
export interface StoreMigrationsTable {
  name: string;
  applied_at: string;
}

/** The /v2 record log (D14, D17): the records exactly as received, evictable per kind. */
export interface V2RecordsTable {
  seq: SequenceColumn;
  kind: string;
  id: string;
  /** The record as received, as JSON text (never re-encoded by the database). */
  record_json: string;
  /** `sha256:` + hex SHA-256 of the record's canonical JSON. */
  content_hash: string;
  /** ISO 8601 time of first storage. */
  stored_at: string;
  agent_id: string | null;
  /** P508: what the record keeps once evicted (JSON text, the writer's choice), moved to its tombstone. */
  kept_json: string | null;
  /** P571: the id readers know the record by when it is stored under another (a testament version: its agent's). */
  known_as: string | null;
  /** P570: what that id (`known_as`, else `id`) reads as (P455's skeleton); migration 0024 filled every older row. */
  id_skeleton: string | null;
}

/** One row per record kind: the live entry count, and the row writers of a kind lock to evict in turn (D17). */
export interface V2RecordKindsTable {
  kind: string;
  entry_count: number;
}

/** Current lifecycle state per agent (D16), kept apart from the evictable record log. */
export interface LifecycleAgentsTable {
  agent_id: string;
  state: string;
  created_at: string;
  updated_at: string;
  /** Hash of the agent's latest accepted vitality report; null until the first (chain starts at GENESIS). */
  last_vitality_hash: string | null;
  vitality_count: Generated<number>;
  history_count: Generated<number>;
}

/** Every state change of an agent, commissioning included, in order (D16). */
export interface LifecycleHistoryTable {
  seq: SequenceColumn;
  agent_id: string;
  from_state: string | null;
  to_state: string;
  reason: string | null;
  at: string;
}

/** What is left of an evicted record (issue 15): its id keeps meaning this content. */
export interface V2RecordTombstonesTable {
  kind: string;
  id: string;
  content_hash: string;
  stored_at: string;
  evicted_at: string;
  /** P508: what the record kept of itself (its `kept_json`); NULL when it kept nothing. */
  kept_json: string | null;
  /** P509: the evicted record's `seq` (the store's order); NULL for tombstones written before migration 0023. */
  seq: number | string | null;
  /** P570, P571: the evicted record's `known_as` and `id_skeleton`, moved with it. */
  known_as: string | null;
  id_skeleton: string | null;
}

/** How a stored record's write was authorised (issue 15), keyed by its content. */
export interface V2RecordSignaturesTable {
  kind: string;
  content_hash: string;
  status: string;
  kid: string | null;
  evidence: string | null;
  recorded_at: string;
}

/** P297: one row per appointed arbitrator counted for a resolution's signed payload (migration 0019). */
export interface V2PanelSignaturesTable {
  dispute_id: string;
  payload_hash: string;
  arbitrator_id: string;
  kid: string;
  recorded_at: string;
}

export interface Database {
  store_migrations: StoreMigrationsTable;
  v2_records: V2RecordsTable;
  v2_record_tombstones: V2RecordTombstonesTable;
  v2_record_signatures: V2RecordSignaturesTable;
  v2_panel_signatures: V2PanelSignaturesTable;
  v2_record_kinds: V2RecordKindsTable;
  lifecycle_agents: LifecycleAgentsTable;
  lifecycle_history: LifecycleHistoryTable;
}
