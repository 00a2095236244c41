// Repository of the transparency log: batched appends in one locked transaction, stored perfect subtrees, checkpoints.
// Implements D18 (RFC 9162 log, durable before acknowledged, one sequencer, one root per signed size) and docs/architecture.md §4.
import {
  completedSubtrees,
  rfc9162LeafHash,
  rootFromSubtrees,
  type SubtreeCoordinate,
  type SubtreeReader,
  subtreesForRoot,
} from '@proto/core';
import { CompiledQuery, type Kysely } from 'kysely';
import type { StoreDialect } from '../migrations/migration.ts';
import type { Database } from '../schema.ts';
import { inTransaction } from '../transaction.ts';

/** Kysely table types of migration 0003 (kept here so the log's storage is one file). */
export interface LogTables {
  tlog_head: { id: number; tree_size: number | string; root: Uint8Array; updated_at: string };
  tlog_leaves: { leaf_index: number | string; leaf_data: Uint8Array; sequenced_at: string };
  tlog_nodes: { level: number; node_index: number | string; hash: Uint8Array };
  tlog_checkpoints: { tree_size: number | string; root: Uint8Array; note: string; signed_at: string };
  tlog_meta: { name: string; value: string };
  tlog_root_anchors: {
    tree_size: number | string;
    root: Uint8Array;
    status: string;
    attempts: number;
    requested_at: string;
    updated_at: string;
    chain: string | null;
    tx_id: string | null;
    block_height: number | string | null;
    receipt_json: string | null;
    error: string | null;
  };
}

type LogDatabase = Database & LogTables;

export interface LogHead {
  readonly size: number;
  /** RFC 9162 root of the first `size` leaves (SHA-256 of nothing when empty). */
  readonly root: Uint8Array;
  /** When the last batch was sequenced (ISO 8601). */
  readonly updatedAt: string;
}

export interface LogAppendResult {
  readonly index: number;
  /** When the leaf was sequenced (its first time, for a leaf already in the log). */
  readonly timestamp: string;
  /** false when the leaf was already in the log, or earlier in the same batch. */
  readonly created: boolean;
}

export interface LogBatchResult {
  /** One per input, in input order. */
  readonly results: readonly LogAppendResult[];
  /** The head after the batch (unchanged when every leaf was already there). */
  readonly head: LogHead;
  /** New leaves written by this batch. */
  readonly appended: number;
}

export interface LogEntry {
  readonly index: number;
  readonly data: Uint8Array;
  readonly timestamp: string;
}

export interface LogCheckpointRecord {
  readonly size: number;
  readonly root: Uint8Array;
  /** The signed note, served verbatim. */
  readonly note: string;
  readonly signedAt: string;
}

export type RootAnchorStatus = 'requesting' | 'pending' | 'confirmed' | 'failed';

export interface RootAnchorRecord {
  readonly size: number;
  readonly root: Uint8Array;
  readonly status: RootAnchorStatus;
  readonly attempts: number;
  readonly requestedAt: string;
  readonly updatedAt: string;
  readonly chain: string | null;
  readonly txId: string | null;
  readonly blockHeight: number | null;
  /** The anchor service's answer as JSON text. */
  readonly receiptJson: string | null;
  readonly error: string | null;
}

export interface RootAnchorOutcome {
  readonly status: Exclude<RootAnchorStatus, 'requesting'>;
  readonly chain?: string | null;
  readonly txId?: string | null;
  readonly blockHeight?: number | null;
  readonly receiptJson?: string | null;
  readonly error?: string | null;
}

export interface LogRepository {
  /** The current tree head (committed). */
  head(): Promise<LogHead>;
  /**
   * Sequences a batch in one transaction that holds the head's lock: leaves already in the log (or
   * repeated in the batch) keep their index, new ones get the next indices, and their leaves, the
   * perfect-subtree nodes they complete and the new head commit together. Nothing is acknowledged
   * before the commit.
   */
  append(leaves: readonly Uint8Array[], at?: Date): Promise<LogBatchResult>;
  /** Stored perfect-subtree hashes by coordinate (absent ones are missing from the map). */
  nodes(coordinates: readonly SubtreeCoordinate[]): Promise<Map<string, Uint8Array>>;
  /** Leaves [start, end), in order. */
  entries(start: number, end: number): Promise<LogEntry[]>;
  findEntry(data: Uint8Array): Promise<LogEntry | undefined>;
  latestCheckpoint(): Promise<LogCheckpointRecord | undefined>;
  checkpoint(size: number): Promise<LogCheckpointRecord | undefined>;
  /** Stored checkpoints with size in [fromSize, toSize], oldest first (at most `limit`). */
  checkpoints(fromSize: number, toSize: number, limit?: number): Promise<LogCheckpointRecord[]>;
  /**
   * Stores a signed checkpoint unless one exists for its size: `exists` when the stored one has the
   * same root, `conflict` (nothing written) when it has another: a size is never signed with two roots.
   */
  saveCheckpoint(record: LogCheckpointRecord): Promise<'created' | 'exists' | 'conflict'>;
  meta(name: string): Promise<string | undefined>;
  /** Stores `value` unless the name has one; returns the stored value either way. */
  initMeta(name: string, value: string): Promise<string>;
  setMeta(name: string, value: string): Promise<void>;
  /**
   * Takes the right to anchor the root of `size`: true when no one has asked yet, the last attempt
   * failed, or a claim is older than `staleBefore` (its holder died). One winner per size.
   */
  claimRootAnchor(size: number, root: Uint8Array, at: Date, staleBefore: Date): Promise<boolean>;
  finishRootAnchor(size: number, outcome: RootAnchorOutcome, at: Date): Promise<void>;
  /** The newest anchor of any status (`settledOnly`: pending or confirmed only). */
  latestRootAnchor(options?: { readonly settledOnly?: boolean }): Promise<RootAnchorRecord | undefined>;
}

export interface LogRepositoryOptions {
  readonly dialect: StoreDialect;
  readonly clock: () => Date;
}

/** Map key of a node coordinate in `LogRepository.nodes` results. */
export function logNodeKey(level: number, index: number): string {
  return `${level}/${index}`;
}

/** A SubtreeReader over a node map; a missing node is a broken store and throws. */
export function logNodeReader(...maps: ReadonlyMap<string, Uint8Array>[]): SubtreeReader {
  return (level, index) => {
    const key = logNodeKey(level, index);
    for (const map of maps) {
      const hash = map.get(key);
      if (hash !== undefined) return hash;
    }
    throw new Error(`transparency log node ${key} is missing from the store`);
  };
}

// Rows per multi-row statement: far below SQLite's 32,766 and PostgreSQL's 65,535 parameters.
const CHUNK = 1000;

function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * SQLite caches prepared statements by text, so multi-row statements come in power-of-two row counts
 * (ten shapes, all cached) instead of one shape per batch size. PostgreSQL parses every statement
 * anyway and pays a round trip per statement, so it gets the fewest statements.
 */
function statementChunks<T>(items: readonly T[], dialect: StoreDialect): T[][] {
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
function placeholders(rows: number, width: number): string {
  const group = width === 1 ? '?' : `(${Array.from({ length: width }, () => '?').join(', ')})`;
  return Array.from({ length: rows }, () => group).join(', ');
}

/** Bytes for the driver: node:sqlite binds any Uint8Array, pg wants a Buffer for bytea. */
function param(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function bytesKey(bytes: Uint8Array): string {
  return param(bytes).toString('hex');
}

function toBytes(value: Uint8Array): Uint8Array {
  return value instanceof Buffer ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength) : value;
}

function checkCount(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${what} must be a non-negative safe integer`);
}

/** What one batch writes: its new leaves from index `size`, the nodes they complete, the new head. */
interface BatchWrite {
  readonly size: number;
  readonly newSize: number;
  readonly root: Uint8Array;
  readonly timestamp: string;
  readonly fresh: readonly Uint8Array[];
  readonly completed: readonly { level: number; index: number; hash: Uint8Array }[];
}

export class KyselyLogRepository implements LogRepository {
  readonly #db: Kysely<LogDatabase>;
  readonly #dialect: StoreDialect;
  readonly #clock: () => Date;

  constructor(db: Kysely<Database>, options: LogRepositoryOptions) {
    this.#db = db as unknown as Kysely<LogDatabase>;
    this.#dialect = options.dialect;
    this.#clock = options.clock;
  }

  async head(): Promise<LogHead> {
    const row = await this.#db
      .selectFrom('tlog_head')
      .select(['tree_size', 'root', 'updated_at'])
      .where('id', '=', 1)
      .executeTakeFirstOrThrow();
    return { size: Number(row.tree_size), root: toBytes(row.root), updatedAt: row.updated_at };
  }

  async append(leaves: readonly Uint8Array[], at?: Date): Promise<LogBatchResult> {
    for (const leaf of leaves) {
      if (!(leaf instanceof Uint8Array) || leaf.byteLength === 0)
        throw new TypeError('leaf data must be non-empty bytes');
    }
    const timestamp = (at ?? this.#clock()).toISOString();
    return inTransaction(this.#db as unknown as Kysely<Database>, async (untyped) => {
      const trx = untyped as unknown as Kysely<LogDatabase>;
      // The lock every sequencer queues on: on PostgreSQL this row, on SQLite the write lock the
      // transaction took at BEGIN IMMEDIATE. Whoever holds it sees the latest committed size.
      const headRow = await trx
        .selectFrom('tlog_head')
        .select(['tree_size', 'root', 'updated_at'])
        .where('id', '=', 1)
        .$if(this.#dialect === 'postgres', (qb) => qb.forUpdate())
        .executeTakeFirstOrThrow();
      const size = Number(headRow.tree_size);
      const before: LogHead = { size, root: toBytes(headRow.root), updatedAt: headRow.updated_at };

      const known = new Map<string, LogAppendResult>();
      const keys = leaves.map(bytesKey);
      const distinct = [...new Map(leaves.map((leaf, i) => [keys[i] as string, leaf])).values()];
      // The only stored nodes an append can need: the perfect subtrees of the current tree.
      const wantedNodes = subtreesForRoot(size);
      let prior: Map<string, Uint8Array>;
      if (this.#dialect === 'postgres') {
        const found = await this.#lookupPostgres(trx, distinct, wantedNodes);
        for (const [key, result] of found.leaves) known.set(key, result);
        prior = found.nodes;
      } else {
        for (const part of statementChunks(distinct, this.#dialect)) {
          const rows = await this.#raw<{
            leaf_index: number | string;
            leaf_data: Uint8Array;
            sequenced_at: string;
          }>(
            trx,
            `SELECT leaf_index, leaf_data, sequenced_at FROM tlog_leaves WHERE leaf_data IN (${placeholders(part.length, 1)})`,
            part.map(param),
          );
          for (const row of rows) {
            known.set(bytesKey(toBytes(row.leaf_data)), {
              index: Number(row.leaf_index),
              timestamp: row.sequenced_at,
              created: false,
            });
          }
        }
        prior = await this.#readNodes(trx, wantedNodes);
      }

      const fresh: Uint8Array[] = [];
      const results: LogAppendResult[] = leaves.map((leaf, i) => {
        const key = keys[i] as string;
        const existing = known.get(key);
        if (existing !== undefined) return existing;
        const result = { index: size + fresh.length, timestamp, created: true };
        fresh.push(leaf);
        known.set(key, { ...result, created: false });
        return result;
      });
      if (fresh.length === 0) return { results, head: before, appended: 0 };

      const newSize = size + fresh.length;
      checkCount(newSize, 'tree size');
      const completed = completedSubtrees(size, fresh.map(rfc9162LeafHash), logNodeReader(prior));
      const made = new Map(completed.map((node) => [logNodeKey(node.level, node.index), node.hash]));
      const root = rootFromSubtrees(newSize, logNodeReader(made, prior));

      const moved =
        this.#dialect === 'postgres'
          ? !(await this.#writePostgres(trx, { size, newSize, root, timestamp, fresh, completed }))
          : !(await this.#writeSqlite(trx, { size, newSize, root, timestamp, fresh, completed }));
      if (moved) throw new Error('transparency log head moved under its lock');
      return { results, head: { size: newSize, root, updatedAt: timestamp }, appended: fresh.length };
    });
  }

  /**
   * PostgreSQL: the batch's known leaves and the current tree's perfect subtrees in one round trip.
   * It runs after the head lock, so its snapshot (READ COMMITTED: per statement) sees every commit
   * of whoever held the lock before; arrays keep the statement text (and its parse) the same for
   * every batch size.
   */
  async #lookupPostgres(
    trx: Kysely<LogDatabase>,
    distinct: readonly Uint8Array[],
    wanted: readonly SubtreeCoordinate[],
  ): Promise<{ leaves: Map<string, LogAppendResult>; nodes: Map<string, Uint8Array> }> {
    const rows = await this.#raw<{
      kind: number;
      a: number | string;
      b: number | string | null;
      data: Uint8Array;
      ts: string | null;
    }>(
      trx,
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
  async #writePostgres(trx: Kysely<LogDatabase>, batch: BatchWrite): Promise<boolean> {
    const rows = await this.#raw<{ tree_size: number | string }>(
      trx,
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
  async #writeSqlite(trx: Kysely<LogDatabase>, batch: BatchWrite): Promise<boolean> {
    for (const part of statementChunks(
      batch.fresh.map((leaf, i) => ({ leaf, index: batch.size + i })),
      this.#dialect,
    )) {
      await this.#raw(
        trx,
        `INSERT INTO tlog_leaves (leaf_index, leaf_data, sequenced_at) VALUES ${placeholders(part.length, 3)}`,
        part.flatMap(({ leaf, index }) => [index, param(leaf), batch.timestamp]),
      );
    }
    for (const part of statementChunks(batch.completed, this.#dialect)) {
      await this.#raw(
        trx,
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

  nodes(coordinates: readonly SubtreeCoordinate[]): Promise<Map<string, Uint8Array>> {
    return this.#readNodes(this.#db, coordinates);
  }

  async #readNodes(
    db: Kysely<LogDatabase>,
    coordinates: readonly SubtreeCoordinate[],
  ): Promise<Map<string, Uint8Array>> {
    const out = new Map<string, Uint8Array>();
    const wanted = [...new Map(coordinates.map((c) => [logNodeKey(c.level, c.index), c])).values()];
    for (const part of chunks(wanted, 200)) {
      const rows = await this.#raw<{ level: number; node_index: number | string; hash: Uint8Array }>(
        db,
        `SELECT level, node_index, hash FROM tlog_nodes WHERE ${part.map(() => '(level = ? AND node_index = ?)').join(' OR ')}`,
        part.flatMap((c) => [c.level, c.index]),
      );
      for (const row of rows)
        out.set(logNodeKey(Number(row.level), Number(row.node_index)), toBytes(row.hash));
    }
    return out;
  }

  /** Runs SQL written with `?` placeholders (numbered for PostgreSQL) on `db` (the store or a transaction). */
  async #raw<R>(db: Kysely<LogDatabase>, text: string, parameters: readonly unknown[]): Promise<R[]> {
    let n = 0;
    const sqlText = this.#dialect === 'postgres' ? text.replace(/\?/g, () => `$${++n}`) : text;
    return (await db.executeQuery<R>(CompiledQuery.raw(sqlText, [...parameters]))).rows;
  }

  async entries(start: number, end: number): Promise<LogEntry[]> {
    checkCount(start, 'start');
    checkCount(end, 'end');
    if (end <= start) return [];
    const rows = await this.#db
      .selectFrom('tlog_leaves')
      .select(['leaf_index', 'leaf_data', 'sequenced_at'])
      .where('leaf_index', '>=', start)
      .where('leaf_index', '<', end)
      .orderBy('leaf_index')
      .execute();
    return rows.map((row) => ({
      index: Number(row.leaf_index),
      data: toBytes(row.leaf_data),
      timestamp: row.sequenced_at,
    }));
  }

  async findEntry(data: Uint8Array): Promise<LogEntry | undefined> {
    const row = await this.#db
      .selectFrom('tlog_leaves')
      .select(['leaf_index', 'leaf_data', 'sequenced_at'])
      .where('leaf_data', '=', param(data))
      .executeTakeFirst();
    return (
      row && { index: Number(row.leaf_index), data: toBytes(row.leaf_data), timestamp: row.sequenced_at }
    );
  }

  async latestCheckpoint(): Promise<LogCheckpointRecord | undefined> {
    const row = await this.#db
      .selectFrom('tlog_checkpoints')
      .selectAll()
      .orderBy('tree_size', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row && toCheckpoint(row);
  }

  async checkpoint(size: number): Promise<LogCheckpointRecord | undefined> {
    checkCount(size, 'size');
    const row = await this.#db
      .selectFrom('tlog_checkpoints')
      .selectAll()
      .where('tree_size', '=', size)
      .executeTakeFirst();
    return row && toCheckpoint(row);
  }

  async checkpoints(fromSize: number, toSize: number, limit = 1000): Promise<LogCheckpointRecord[]> {
    const rows = await this.#db
      .selectFrom('tlog_checkpoints')
      .selectAll()
      .where('tree_size', '>=', fromSize)
      .where('tree_size', '<=', toSize)
      .orderBy('tree_size')
      .limit(limit)
      .execute();
    return rows.map(toCheckpoint);
  }

  async saveCheckpoint(record: LogCheckpointRecord): Promise<'created' | 'exists' | 'conflict'> {
    checkCount(record.size, 'size');
    const inserted = await this.#db
      .insertInto('tlog_checkpoints')
      .values({
        tree_size: record.size,
        root: param(record.root),
        note: record.note,
        signed_at: record.signedAt,
      })
      .onConflict((oc) => oc.column('tree_size').doNothing())
      .returning('tree_size')
      .executeTakeFirst();
    if (inserted !== undefined) return 'created';
    const stored = await this.checkpoint(record.size);
    return stored !== undefined && bytesKey(stored.root) === bytesKey(record.root) ? 'exists' : 'conflict';
  }

  async meta(name: string): Promise<string | undefined> {
    const row = await this.#db
      .selectFrom('tlog_meta')
      .select('value')
      .where('name', '=', name)
      .executeTakeFirst();
    return row?.value;
  }

  async initMeta(name: string, value: string): Promise<string> {
    await this.#db
      .insertInto('tlog_meta')
      .values({ name, value })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    return (await this.meta(name)) as string;
  }

  async setMeta(name: string, value: string): Promise<void> {
    await this.#db
      .insertInto('tlog_meta')
      .values({ name, value })
      .onConflict((oc) => oc.column('name').doUpdateSet({ value }))
      .execute();
  }

  async claimRootAnchor(size: number, root: Uint8Array, at: Date, staleBefore: Date): Promise<boolean> {
    checkCount(size, 'size');
    const now = at.toISOString();
    const inserted = await this.#db
      .insertInto('tlog_root_anchors')
      .values({
        tree_size: size,
        root: param(root),
        status: 'requesting',
        attempts: 1,
        requested_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('tree_size').doNothing())
      .returning('tree_size')
      .executeTakeFirst();
    if (inserted !== undefined) return true;
    // A conditional update is its own compare-and-set: of two racing retries, one changes the row.
    const retried = await this.#db
      .updateTable('tlog_root_anchors')
      .set((eb) => ({ status: 'requesting', updated_at: now, attempts: eb('attempts', '+', 1), error: null }))
      .where('tree_size', '=', size)
      .where((eb) =>
        eb.or([
          eb('status', '=', 'failed'),
          eb.and([eb('status', '=', 'requesting'), eb('updated_at', '<', staleBefore.toISOString())]),
        ]),
      )
      .executeTakeFirst();
    return Number(retried.numUpdatedRows) === 1;
  }

  async finishRootAnchor(size: number, outcome: RootAnchorOutcome, at: Date): Promise<void> {
    await this.#db
      .updateTable('tlog_root_anchors')
      .set({
        status: outcome.status,
        updated_at: at.toISOString(),
        chain: outcome.chain ?? null,
        tx_id: outcome.txId ?? null,
        block_height: outcome.blockHeight ?? null,
        receipt_json: outcome.receiptJson ?? null,
        error: outcome.error ?? null,
      })
      .where('tree_size', '=', size)
      .execute();
  }

  async latestRootAnchor(
    options: { readonly settledOnly?: boolean } = {},
  ): Promise<RootAnchorRecord | undefined> {
    const row = await this.#db
      .selectFrom('tlog_root_anchors')
      .selectAll()
      .$if(options.settledOnly === true, (qb) => qb.where('status', 'in', ['pending', 'confirmed']))
      .orderBy('tree_size', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return {
      size: Number(row.tree_size),
      root: toBytes(row.root),
      status: row.status as RootAnchorStatus,
      attempts: Number(row.attempts),
      requestedAt: row.requested_at,
      updatedAt: row.updated_at,
      chain: row.chain,
      txId: row.tx_id,
      blockHeight: row.block_height === null ? null : Number(row.block_height),
      receiptJson: row.receipt_json,
      error: row.error,
    };
  }
}

function toCheckpoint(row: {
  tree_size: number | string;
  root: Uint8Array;
  note: string;
  signed_at: string;
}): LogCheckpointRecord {
  return { size: Number(row.tree_size), root: toBytes(row.root), note: row.note, signedAt: row.signed_at };
}
