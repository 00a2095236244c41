// SQL helpers of the log repository: chunking, placeholders, byte conversion and the batch writes per dialect.
// Implements D18 (one batch per locked transaction) and docs/architecture.md §4.
import type { SubtreeCoordinate } from '@proto/core';
import { CompiledQuery, type Kysely } from 'kysely';
import type { StoreDialect } from '../migrations/migration.ts';
import type { Database } from '../schema.ts';
import { type LogAppendResult, type LogTables, logNodeKey } from './log-model.ts';

export type LogDatabase = Database & LogTables;

// Rows per multi-row statement: far below SQLite's 32,766 and PostgreSQL's 65,535 parameters.
const CHUNK = 1000;

export function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * SQLite caches prepared statements by text, so multi-row statements come in power-of-two row counts
 * (ten shapes, all cached) instead of one shape per batch size. PostgreSQL parses every statement
 * anyway and pays a round trip per statement, so it gets the fewest statements.
 */
export function statementChunks<T>(items: readonly T[], dialect: StoreDialect): T[][] {
  if (dialect === 'postgres') return chunks(items);
  const out: T[][] = [];
  let at = 0;
  while (at < items.length) {
    let size = 512;
    while (size > items.length - at) size /= 2;
    out.push(items.slice(at, at + size));
    at += size;
  }
  return out;
}

/** `(?, ?, …), (…)`: `rows` groups of `width` placeholders (a bare list when width is 1). */
export function placeholders(rows: number, width: number): string {
  const group = width === 1 ? '?' : `(${Array.from({ length: width }, () => '?').join(', ')})`;
  return Array.from({ length: rows }, () => group).join(', ');
}

/** Bytes for the driver: node:sqlite binds any Uint8Array, pg wants a Buffer for bytea. */
export function param(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function bytesKey(bytes: Uint8Array): string {
  return param(bytes).toString('hex');
}

export function toBytes(value: Uint8Array): Uint8Array {
  return value instanceof Buffer ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength) : value;
}

export function checkCount(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${what} must be a non-negative safe integer`);
}

/** What one batch writes: its new leaves from index `size`, the nodes they complete, the new head. */
export interface BatchWrite {
  readonly size: number;
  readonly newSize: number;
  readonly root: Uint8Array;
  readonly timestamp: string;
  readonly fresh: readonly Uint8Array[];
  readonly completed: readonly { level: number; index: number; hash: Uint8Array }[];
}

/** Runs SQL written with `?` placeholders (numbered for PostgreSQL) on `db` (the store or a transaction). */
export async function rawQuery<R>(
  db: Kysely<LogDatabase>,
  dialect: StoreDialect,
  text: string,
  parameters: readonly unknown[],
): Promise<R[]> {
  let n = 0;
  const sqlText = dialect === 'postgres' ? text.replace(/\?/g, () => `$${++n}`) : text;
  return (await db.executeQuery<R>(CompiledQuery.raw(sqlText, [...parameters]))).rows;
}

/**
 * PostgreSQL: the batch's known leaves and the current tree's perfect subtrees in one round trip.
 * It runs after the head lock, so its snapshot (READ COMMITTED: per statement) sees every commit
 * of whoever held the lock before; arrays keep the statement text (and its parse) the same for
 * every batch size.
 */
export async function lookupPostgres(
  trx: Kysely<LogDatabase>,
  distinct: readonly Uint8Array[],
  wanted: readonly SubtreeCoordinate[],
): Promise<{ leaves: Map<string, LogAppendResult>; nodes: Map<string, Uint8Array> }> {
  const rows = await rawQuery<{
    kind: number;
    a: number | string;
    b: number | string | null;
    data: Uint8Array;
    ts: string | null;
  }>(
    trx,
    'postgres',
    `SELECT 0 AS kind, leaf_index AS a, NULL::bigint AS b, leaf_data AS data, sequenced_at AS ts
       FROM tlog_leaves WHERE leaf_data = ANY(?::bytea[])
     UNION ALL
     SELECT 1, n.level, n.node_index, n.hash, NULL
       FROM tlog_nodes n JOIN unnest(?::integer[], ?::bigint[]) AS w(level, node_index)
         ON n.level = w.level AND n.node_index = w.node_index`,
    [distinct.map(param), wanted.map((c) => c.level), wanted.map((c) => c.index)],
  );
  const leaves = new Map<string, LogAppendResult>();
  const nodes = new Map<string, Uint8Array>();
  for (const row of rows) {
    if (Number(row.kind) === 0) {
      leaves.set(bytesKey(toBytes(row.data)), {
        index: Number(row.a),
        timestamp: row.ts as string,
        created: false,
      });
    } else {
      nodes.set(logNodeKey(Number(row.a), Number(row.b)), toBytes(row.data));
    }
  }
  return { leaves, nodes };
}

/**
 * PostgreSQL: leaves, completed nodes and the new head in one statement (data-modifying CTEs, one
 * round trip instead of three or more); false when the head was not at `size`. Durability is
 * unchanged: nothing is acknowledged before COMMIT, and synchronous_commit stays as the server has it.
 */
export async function writePostgres(trx: Kysely<LogDatabase>, batch: BatchWrite): Promise<boolean> {
  const rows = await rawQuery<{ tree_size: number | string }>(
    trx,
    'postgres',
    `WITH new_leaves AS (
       INSERT INTO tlog_leaves (leaf_index, leaf_data, sequenced_at)
       SELECT leaf_index, leaf_data, ? FROM unnest(?::bigint[], ?::bytea[]) AS t(leaf_index, leaf_data)
     ), new_nodes AS (
       INSERT INTO tlog_nodes (level, node_index, hash)
       SELECT * FROM unnest(?::integer[], ?::bigint[], ?::bytea[])
     )
     UPDATE tlog_head SET tree_size = ?, root = ?, updated_at = ?
      WHERE id = 1 AND tree_size = ?
     RETURNING tree_size`,
    [
      batch.timestamp,
      batch.fresh.map((_, i) => batch.size + i),
      batch.fresh.map(param),
      batch.completed.map((node) => node.level),
      batch.completed.map((node) => node.index),
      batch.completed.map((node) => param(node.hash)),
      batch.newSize,
      param(batch.root),
      batch.timestamp,
      batch.size,
    ],
  );
  return rows.length === 1;
}

/** SQLite: multi-row statements written directly (the query builder costs more than SQLite for 1,000 rows). */
export async function writeSqlite(trx: Kysely<LogDatabase>, batch: BatchWrite): Promise<boolean> {
  for (const part of statementChunks(
    batch.fresh.map((leaf, i) => ({ leaf, index: batch.size + i })),
    'sqlite',
  )) {
    await rawQuery(
      trx,
      'sqlite',
      `INSERT INTO tlog_leaves (leaf_index, leaf_data, sequenced_at) VALUES ${placeholders(part.length, 3)}`,
      part.flatMap(({ leaf, index }) => [index, param(leaf), batch.timestamp]),
    );
  }
  for (const part of statementChunks(batch.completed, 'sqlite')) {
    await rawQuery(
      trx,
      'sqlite',
      `INSERT INTO tlog_nodes (level, node_index, hash) VALUES ${placeholders(part.length, 3)}`,
      part.flatMap((node) => [node.level, node.index, param(node.hash)]),
    );
  }
  const updated = await trx
    .updateTable('tlog_head')
    .set({ tree_size: batch.newSize, root: param(batch.root), updated_at: batch.timestamp })
    .where('id', '=', 1)
    .where('tree_size', '=', batch.size)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}
