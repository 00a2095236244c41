// Repository of the transparency log: batched appends in one locked transaction, stored perfect subtrees, checkpoints.
// Implements D18 (RFC 9162 log, durable before acknowledged, one sequencer, one root per signed size) and docs/architecture.md §4.
import {
  completedSubtrees,
  rfc9162LeafHash,
  rootFromSubtrees,
  type SubtreeCoordinate,
  subtreesForRoot,
} from '@proto/core';
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { StoreDialect } from '../migrations/migration.ts';
import type { Database } from '../schema.ts';
import { inTransaction } from '../transaction.ts';
import type {
  LogAppendResult,
  LogBatchResult,
  LogCheckpointRecord,
  LogEntry,
  LogHead,
  LogRepository,
  LogRepositoryOptions,
  LogTables,
  RootAnchorOutcome,
  RootAnchorRecord,
  RootAnchorStatus,
} from './log-model.ts';
import { logNodeKey, logNodeReader } from './log-model.ts';
import {
  bytesKey,
  checkCount,
  chunks,
  type LogDatabase,
  lookupPostgres,
  param,
  placeholders,
  rawQuery,
  statementChunks,
  toBytes,
  writePostgres,
  writeSqlite,
} from './log-sql.ts';

export * from './log-model.ts';

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
        const found = await lookupPostgres(trx, distinct, wantedNodes);
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
          ? !(await writePostgres(trx, { size, newSize, root, timestamp, fresh, completed }))
          : !(await writeSqlite(trx, { size, newSize, root, timestamp, fresh, completed }));
      if (moved) throw new Error('transparency log head moved under its lock');
      return { results, head: { size: newSize, root, updatedAt: timestamp }, appended: fresh.length };
    });
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
  #raw<R>(db: Kysely<LogDatabase>, text: string, parameters: readonly unknown[]): Promise<R[]> {
    return rawQuery<R>(db, this.#dialect, text, parameters);
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
        polls: 0,
        next_poll_at: null,
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
        // A changed receipt is asked for again at the next round (P63).
        polls: 0,
        next_poll_at: null,
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
    return row === undefined ? undefined : toRootAnchor(row);
  }

  async dueRootAnchors(
    now: Date,
    limit: number,
    options: { readonly confirmedPolls?: number } = {},
  ): Promise<RootAnchorRecord[]> {
    checkCount(limit, 'limit');
    const due = (eb: ExpressionBuilder<LogDatabase, 'tlog_root_anchors'>) =>
      eb.or([eb('next_poll_at', 'is', null), eb('next_poll_at', '<=', now.toISOString())]);
    const rows = await this.#db
      .selectFrom('tlog_root_anchors')
      .selectAll()
      .where('status', '=', 'pending')
      .where(due)
      .orderBy('tree_size', 'asc')
      .limit(limit)
      .execute();
    const confirmedPolls = options.confirmedPolls ?? 0;
    if (confirmedPolls > 0 && rows.length < limit) {
      // P392: a confirmed receipt is still followed for a few polls (pending ones first: they are the log's news).
      const confirmed = await this.#db
        .selectFrom('tlog_root_anchors')
        .selectAll()
        .where('status', '=', 'confirmed')
        .where('polls', '<', confirmedPolls)
        .where(due)
        .orderBy('tree_size', 'asc')
        .limit(limit - rows.length)
        .execute();
      rows.push(...confirmed);
    }
    return rows.map(toRootAnchor);
  }

  async deferRootAnchorPoll(size: number, nextPollAt: Date): Promise<void> {
    await this.#db
      .updateTable('tlog_root_anchors')
      .set((eb) => ({ polls: eb('polls', '+', 1), next_poll_at: nextPollAt.toISOString() }))
      .where('tree_size', '=', size)
      .where('status', 'in', ['pending', 'confirmed'])
      .execute();
  }

  async rootAnchors(fromSize: number, limit: number): Promise<RootAnchorRecord[]> {
    checkCount(fromSize, 'size');
    checkCount(limit, 'limit');
    const rows = await this.#db
      .selectFrom('tlog_root_anchors')
      .selectAll()
      .where('tree_size', '>=', fromSize)
      .orderBy('tree_size', 'asc')
      .limit(limit)
      .execute();
    return rows.map(toRootAnchor);
  }

  async deleteRootAnchor(size: number): Promise<RootAnchorRecord | undefined> {
    checkCount(size, 'size');
    const row = await this.#db
      .deleteFrom('tlog_root_anchors')
      .where('tree_size', '=', size)
      .returningAll()
      .executeTakeFirst();
    return row === undefined ? undefined : toRootAnchor(row);
  }
}

function toRootAnchor(row: LogTables['tlog_root_anchors']): RootAnchorRecord {
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
    polls: Number(row.polls ?? 0),
    nextPollAt: row.next_poll_at ?? null,
  };
}

function toCheckpoint(row: {
  tree_size: number | string;
  root: Uint8Array;
  note: string;
  signed_at: string;
}): LogCheckpointRecord {
  return { size: Number(row.tree_size), root: toBytes(row.root), note: row.note, signedAt: row.signed_at };
}
