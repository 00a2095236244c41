// Repository of the /v2 records: stored as received, idempotent by content, evicted oldest-first per kind.
// Implements D14 (ids, idempotent re-post, 409 on different content) and D17 (STORE_MAX_ENTRIES per kind).
import { hashCanonicalV2, skeletonOf } from '@proto/core';
import { type Kysely, type Selectable, sql } from 'kysely';
import { assertId, assertKind, isValidId } from '../ids.ts';
import type { Database, V2RecordsTable, V2RecordTombstonesTable } from '../schema.ts';
import { inTransaction } from '../transaction.ts';

export interface StoredRecord {
  readonly kind: string;
  readonly id: string;
  /** The record, parsed from the stored JSON text. */
  readonly record: unknown;
  /** The stored JSON text itself, byte for byte what `JSON.stringify` gave at `put` time. */
  readonly json: string;
  /** `sha256:` + hex SHA-256 of the record's canonical JSON (sorted keys, compact). */
  readonly content_hash: string;
  /** ISO 8601 time of first storage; an identical re-put keeps it. */
  readonly stored_at: string;
  /** Store-wide insertion order, strictly increasing. */
  readonly seq: number;
  readonly agent_id?: string;
}

export type PutStatus = 'created' | 'identical' | 'conflict';

export interface PutResult {
  /** `created`: stored now; `identical`: same content already stored; `conflict`: other content holds the id. */
  readonly status: PutStatus;
  /** The new record, or (identical, conflict) the one already stored, which did not change. */
  readonly stored: StoredRecord;
}

/** An evicted record's trace: its id keeps meaning this content (issue 15). */
export interface RecordTombstone {
  readonly kind: string;
  readonly id: string;
  readonly content_hash: string;
  readonly stored_at: string;
  readonly evicted_at: string;
  /** P508: what the record kept of itself once evicted (its writer's `keep`), when it kept anything. */
  readonly kept?: unknown;
  /** P509: the evicted record's place in the store's order (`seq`); absent on tombstones older than migration 0023. */
  readonly seq?: number;
}

/**
 * Thrown by `put` (rolling its transaction back) when a different record held this id and was evicted by
 * retention: the id is not reusable (issue 15 item 4).
 */
export class RecordIdRetiredError extends Error {
  readonly tombstone: RecordTombstone;
  constructor(tombstone: RecordTombstone) {
    super(
      `${tombstone.kind} ${tombstone.id} held another record (evicted ${tombstone.evicted_at}); ids are never reused`,
    );
    this.name = 'RecordIdRetiredError';
    this.tombstone = tombstone;
  }
}

export interface PutOptions {
  /** The agent the record is about, for `latestForAgent`. */
  readonly agentId?: string;
  /**
   * P508: what of the record its tombstone keeps once retention evicts it (JSON), beside its content hash: what later
   * writes are judged by (a dispute's parties). Only a new record's is stored; keep it small, tombstones stay.
   */
  readonly keep?: unknown;
  /**
   * P510: the content hash of the record retention evicted from this id that this one may take the id of: the caller
   * judged them the same record in another form (an id that names a payload, not its signature). Any other content
   * under a tombstone is still refused (RecordIdRetiredError).
   */
  readonly overTombstone?: string;
  /**
   * P571: the id readers know the record by when `id` is only where it is stored (a testament version under
   * `<agent>:v<n>` is its agent's): what `readingAlike` compares and names. Default `id`; a record put back over its
   * tombstone keeps the tombstone's.
   */
  readonly knownAs?: string;
}

export interface RecordRepository {
  put(kind: string, id: string, record: unknown, opts?: PutOptions): Promise<PutResult>;
  /**
   * Replaces the record under (kind, id) by `record` only while the stored content still hashes to `expectedHash`
   * (a compare-and-set: of racing replacements one wins); its place in retention (`seq`) and `stored_at` are kept.
   * The stored record after it, or undefined when the stored content is no longer `expectedHash` (or is gone).
   * The caller decides what may replace what (P446: a record's signature upgraded to its hybrid form).
   */
  replace(kind: string, id: string, expectedHash: string, record: unknown): Promise<StoredRecord | undefined>;
  get(kind: string, id: string): Promise<StoredRecord | undefined>;
  /** The trace retention left of the record once under this id (P295: an evicted resolution still resolved). */
  tombstone(kind: string, id: string): Promise<RecordTombstone | undefined>;
  /** The most recently stored record of `kind` about `agentId` (e.g. an agent's latest vitality report). */
  latestForAgent(kind: string, agentId: string): Promise<StoredRecord | undefined>;
  /** Live entries of `kind` (never more than `maxEntriesPerKind`). */
  count(kind: string): Promise<number>;
  /**
   * P570: the other ids of `kind`, live or evicted, that read as `name` (one P455 skeleton, kept with each row and
   * indexed: migration 0024), each once, oldest first, at most `limit`. An id is a record's `knownAs` where it has one.
   * Asked after a write's commit, it always finds of two look-alikes the one committed first, whatever their `seq`.
   */
  readingAlike(kind: string, name: string, limit: number): Promise<readonly string[]>;
  /**
   * Inside `Store.transaction`: waits until no other transaction holds the same (kind, key) series, until
   * commit. PostgreSQL: a transaction-scoped advisory lock; SQLite: nothing to do (one writer at a time).
   */
  lockSeries(kind: string, key: string): Promise<void>;
  /** Records how the write of this content was authorised; the first record of a content is kept. */
  putAuthorship(kind: string, contentHash: string, authorship: RecordAuthorship): Promise<void>;
  getAuthorship(kind: string, contentHash: string): Promise<RecordAuthorship | undefined>;
  /**
   * P297: counts `arbitrator` for the resolution of `disputeId` whose signed payload hashes to `payloadHash`, signed
   * by `kid`; false (nothing written) when that arbitrator or that key is already counted for it.
   */
  addPanelSignature(signature: PanelSignature): Promise<boolean>;
  /**
   * P443: gives the signature `kid` counted for that payload to another arbitrator (`arbitratorId`), which must not be
   * counted for it yet: the panel count re-seats a key bound to two members so that another key finds a seat.
   */
  movePanelSignature(signature: PanelSignature): Promise<void>;
  /** P297: the arbitrators counted for that payload (unordered). */
  panelSignatures(disputeId: string, payloadHash: string): Promise<readonly PanelSignature[]>;
  /** P430: every arbitrator counted for any text of `disputeId` (its resolutions and proposals), unordered. */
  panelSignaturesOfDispute(disputeId: string): Promise<readonly PanelSignature[]>;
}

/** One appointed arbitrator's signature counted for a resolution (P297). */
export interface PanelSignature {
  readonly disputeId: string;
  readonly payloadHash: string;
  readonly arbitratorId: string;
  readonly kid: string;
}

/** How a record's write was authorised (issue 15): `verified` (kid, evidence) or `administrative`. */
export interface RecordAuthorship {
  readonly status: string;
  readonly kid?: string;
  readonly evidence?: string;
}

export interface RecordRepositoryOptions {
  readonly maxEntriesPerKind: number;
  readonly clock: () => Date;
  readonly dialect?: 'sqlite' | 'postgres';
}

type RecordRow = Selectable<V2RecordsTable>;

/**
 * `sha256:` + hex SHA-256 of the record's dcp-jcs-v1 text (core's one canonical JSON; D2, D3, D14).
 * Throws a TypeError on what has no canonical form, so nothing is stored under a hash of something else.
 */
function contentHash(record: unknown): string {
  const hash = hashCanonicalV2('sha256', record);
  if (!hash.ok) throw new TypeError(`record has no canonical JSON form: ${hash.error.message}`);
  return hash.value;
}

export class KyselyRecordRepository implements RecordRepository {
  readonly #db: Kysely<Database>;
  readonly #maxEntriesPerKind: number;
  readonly #clock: () => Date;
  readonly #dialect: 'sqlite' | 'postgres';

  constructor(db: Kysely<Database>, options: RecordRepositoryOptions) {
    this.#db = db;
    this.#maxEntriesPerKind = options.maxEntriesPerKind;
    this.#clock = options.clock;
    this.#dialect = options.dialect ?? 'sqlite';
  }

  async putAuthorship(kind: string, contentHash: string, authorship: RecordAuthorship): Promise<void> {
    await this.#db
      .insertInto('v2_record_signatures')
      .values({
        kind,
        content_hash: contentHash,
        status: authorship.status,
        kid: authorship.kid ?? null,
        evidence: authorship.evidence ?? null,
        recorded_at: this.#clock().toISOString(),
      })
      .onConflict((oc) => oc.columns(['kind', 'content_hash']).doNothing())
      .execute();
  }

  async getAuthorship(kind: string, contentHash: string): Promise<RecordAuthorship | undefined> {
    const row = await this.#db
      .selectFrom('v2_record_signatures')
      .select(['status', 'kid', 'evidence'])
      .where('kind', '=', kind)
      .where('content_hash', '=', contentHash)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return {
      status: row.status,
      ...(row.kid === null ? {} : { kid: row.kid }),
      ...(row.evidence === null ? {} : { evidence: row.evidence }),
    };
  }

  async addPanelSignature(signature: PanelSignature): Promise<boolean> {
    assertId('dispute id', signature.disputeId);
    // Both keys are unique (arbitrator, and kid): a row repeating either is not written.
    const counted = await this.#db
      .selectFrom('v2_panel_signatures')
      .select('arbitrator_id')
      .where('dispute_id', '=', signature.disputeId)
      .where('payload_hash', '=', signature.payloadHash)
      .where((eb) => eb.or([eb('arbitrator_id', '=', signature.arbitratorId), eb('kid', '=', signature.kid)]))
      .executeTakeFirst();
    if (counted !== undefined) return false;
    const inserted = await this.#db
      .insertInto('v2_panel_signatures')
      .values({
        dispute_id: signature.disputeId,
        payload_hash: signature.payloadHash,
        arbitrator_id: signature.arbitratorId,
        kid: signature.kid,
        recorded_at: this.#clock().toISOString(),
      })
      .onConflict((oc) => oc.doNothing())
      .returning('arbitrator_id')
      .executeTakeFirst();
    return inserted !== undefined;
  }

  async movePanelSignature(signature: PanelSignature): Promise<void> {
    assertId('dispute id', signature.disputeId);
    await this.#db
      .updateTable('v2_panel_signatures')
      .set({ arbitrator_id: signature.arbitratorId })
      .where('dispute_id', '=', signature.disputeId)
      .where('payload_hash', '=', signature.payloadHash)
      .where('kid', '=', signature.kid)
      .execute();
  }

  async panelSignatures(disputeId: string, payloadHash: string): Promise<readonly PanelSignature[]> {
    return this.#panelRows(disputeId, payloadHash);
  }

  async panelSignaturesOfDispute(disputeId: string): Promise<readonly PanelSignature[]> {
    return this.#panelRows(disputeId);
  }

  async #panelRows(disputeId: string, payloadHash?: string): Promise<readonly PanelSignature[]> {
    if (!isValidId(disputeId)) return [];
    let query = this.#db
      .selectFrom('v2_panel_signatures')
      .select(['dispute_id', 'payload_hash', 'arbitrator_id', 'kid'])
      .where('dispute_id', '=', disputeId);
    if (payloadHash !== undefined) query = query.where('payload_hash', '=', payloadHash);
    const rows = await query.execute();
    return rows.map((row) => ({
      disputeId: row.dispute_id,
      payloadHash: row.payload_hash,
      arbitratorId: row.arbitrator_id,
      kid: row.kid,
    }));
  }

  async lockSeries(kind: string, key: string): Promise<void> {
    if (this.#dialect !== 'postgres') return;
    if (!this.#db.isTransaction) throw new Error('lockSeries needs a transaction (Store.transaction)');
    const name = `v2:${kind}:${key}`;
    // Two 32-bit halves of a hash of the series name: the lock is released at commit or rollback.
    await sql`SELECT pg_advisory_xact_lock(hashtext(${`${name}:a`}), hashtext(${`${name}:b`}))`.execute(
      this.#db,
    );
  }

  async put(kind: string, id: string, record: unknown, opts?: PutOptions): Promise<PutResult> {
    assertKind(kind);
    assertId('record id', id);
    const agentId = opts?.agentId;
    if (agentId !== undefined) assertId('agent id', agentId);
    if (opts?.knownAs !== undefined) assertId('known-as id', opts.knownAs);
    const hash = contentHash(record); // throws on anything JSON cannot carry
    const json = JSON.stringify(record);
    const kept = opts?.keep === undefined ? null : JSON.stringify(opts.keep);
    const storedAt = this.#clock().toISOString();

    return inTransaction(this.#db, async (trx) => {
      // An id whose record was evicted keeps its meaning: only that same content may come back. No row of
      // this id exists, so no eviction can add its tombstone between this read and the insert below.
      const tombstone = await trx
        .selectFrom('v2_record_tombstones')
        .selectAll()
        .where('kind', '=', kind)
        .where('id', '=', id)
        .executeTakeFirst();
      if (
        tombstone !== undefined &&
        tombstone.content_hash !== hash &&
        tombstone.content_hash !== opts?.overTombstone &&
        // P536: once another form of the evicted record took the id back (P510's `overTombstone`), the live record
        // is what the id holds: a re-post of it is identical, anything else a conflict, as under any live record.
        !(await liveUnder(trx, kind, id))
      ) {
        throw new RecordIdRetiredError(toTombstone(tombstone));
      }
      const knownAs = opts?.knownAs ?? tombstone?.known_as ?? null;
      // Insert-or-nothing, then look: on PostgreSQL a racing insert of the same (kind, id) waits for the
      // first to commit and then finds its row, so exactly one caller ever sees `created`.
      const inserted = await trx
        .insertInto('v2_records')
        .values({
          kind,
          id,
          record_json: json,
          content_hash: hash,
          stored_at: storedAt,
          agent_id: agentId ?? null,
          kept_json: kept,
          known_as: knownAs,
          id_skeleton: skeletonOf(knownAs ?? id),
        })
        .onConflict((oc) => oc.columns(['kind', 'id']).doNothing())
        .returning('seq')
        .executeTakeFirst();
      if (inserted === undefined) {
        const existing = await trx
          .selectFrom('v2_records')
          .selectAll()
          .where('kind', '=', kind)
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
        return {
          status: existing.content_hash === hash ? 'identical' : 'conflict',
          stored: toStoredRecord(existing),
        };
      }

      // The kind's counter row is also its lock: concurrent writers of one kind count and evict in turn.
      const counter = await trx
        .insertInto('v2_record_kinds')
        .values({ kind, entry_count: 1 })
        .onConflict((oc) =>
          oc.column('kind').doUpdateSet((eb) => ({ entry_count: eb('v2_record_kinds.entry_count', '+', 1) })),
        )
        .returning('entry_count')
        .executeTakeFirstOrThrow();
      const excess = Number(counter.entry_count) - this.#maxEntriesPerKind;
      if (excess > 0) await evictOldest(trx, kind, excess);

      const stored: RecordRow = {
        seq: inserted.seq,
        kind,
        id,
        record_json: json,
        content_hash: hash,
        stored_at: storedAt,
        agent_id: agentId ?? null,
        kept_json: kept,
        known_as: knownAs,
        id_skeleton: skeletonOf(knownAs ?? id),
      };
      return { status: 'created', stored: toStoredRecord(stored) };
    });
  }

  async replace(
    kind: string,
    id: string,
    expectedHash: string,
    record: unknown,
  ): Promise<StoredRecord | undefined> {
    assertKind(kind);
    assertId('record id', id);
    const hash = contentHash(record);
    const json = JSON.stringify(record);
    const row = await this.#db
      .updateTable('v2_records')
      .set({ record_json: json, content_hash: hash })
      .where('kind', '=', kind)
      .where('id', '=', id)
      .where('content_hash', '=', expectedHash)
      .returningAll()
      .executeTakeFirst();
    return row === undefined ? undefined : toStoredRecord(row);
  }

  async get(kind: string, id: string): Promise<StoredRecord | undefined> {
    if (!isValidId(id)) return undefined;
    const row = await this.#db
      .selectFrom('v2_records')
      .selectAll()
      .where('kind', '=', kind)
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? undefined : toStoredRecord(row);
  }

  async tombstone(kind: string, id: string): Promise<RecordTombstone | undefined> {
    if (!isValidId(id)) return undefined;
    const row = await this.#db
      .selectFrom('v2_record_tombstones')
      .selectAll()
      .where('kind', '=', kind)
      .where('id', '=', id)
      .executeTakeFirst();
    return row === undefined ? undefined : toTombstone(row);
  }

  async latestForAgent(kind: string, agentId: string): Promise<StoredRecord | undefined> {
    if (!isValidId(agentId)) return undefined;
    const row = await this.#db
      .selectFrom('v2_records')
      .selectAll()
      .where('kind', '=', kind)
      .where('agent_id', '=', agentId)
      .orderBy('seq', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row === undefined ? undefined : toStoredRecord(row);
  }

  async count(kind: string): Promise<number> {
    const row = await this.#db
      .selectFrom('v2_record_kinds')
      .select('entry_count')
      .where('kind', '=', kind)
      .executeTakeFirst();
    return row === undefined ? 0 : Number(row.entry_count);
  }

  async readingAlike(kind: string, name: string, limit: number): Promise<readonly string[]> {
    const skeleton = skeletonOf(name);
    const named = sql<string>`COALESCE(known_as, id)`;
    const live = this.#db
      .selectFrom('v2_records')
      .select([named.as('name'), 'seq'])
      .where('kind', '=', kind)
      .where('id_skeleton', '=', skeleton);
    const evicted = this.#db
      .selectFrom('v2_record_tombstones')
      .select([named.as('name'), 'seq'])
      .where('kind', '=', kind)
      .where('id_skeleton', '=', skeleton);
    const rows = await this.#db
      .selectFrom(evicted.unionAll(live).as('alike'))
      .select((eb) => ['name', eb.fn.min('seq').as('first')])
      .where('name', '<>', name)
      .groupBy('name')
      .orderBy('first')
      .orderBy('name')
      .limit(limit)
      .execute();
    return rows.map((row) => row.name);
  }
}

/** Deletes the `excess` oldest records of `kind` (by seq) and lowers its counter to match (D17: FIFO). */
async function evictOldest(trx: Kysely<Database>, kind: string, excess: number): Promise<void> {
  const oldest = trx
    .selectFrom('v2_records')
    .select('seq')
    .where('kind', '=', kind)
    .orderBy('seq')
    .limit(excess);
  const evictedAt = new Date().toISOString();
  const victims = await trx
    .selectFrom('v2_records')
    .select(['kind', 'id', 'content_hash', 'stored_at', 'kept_json', 'seq', 'known_as', 'id_skeleton'])
    .where('seq', 'in', oldest)
    .execute();
  if (victims.length > 0) {
    await trx
      .insertInto('v2_record_tombstones')
      .values(victims.map((v) => ({ ...v, evicted_at: evictedAt })))
      .onConflict((oc) =>
        oc.columns(['kind', 'id']).doUpdateSet((eb) => ({
          content_hash: eb.ref('excluded.content_hash'),
          stored_at: eb.ref('excluded.stored_at'),
          evicted_at: eb.ref('excluded.evicted_at'),
          kept_json: eb.ref('excluded.kept_json'),
          seq: eb.ref('excluded.seq'),
          known_as: eb.ref('excluded.known_as'),
          id_skeleton: eb.ref('excluded.id_skeleton'),
        })),
      )
      .execute();
  }
  const result = await trx.deleteFrom('v2_records').where('seq', 'in', oldest).executeTakeFirst();
  const deleted = Number(result.numDeletedRows);
  if (deleted > 0) {
    await trx
      .updateTable('v2_record_kinds')
      .set((eb) => ({ entry_count: eb('entry_count', '-', deleted) }))
      .where('kind', '=', kind)
      .execute();
  }
}

function toTombstone(row: Selectable<V2RecordTombstonesTable>): RecordTombstone {
  const { kind, id, content_hash, stored_at, evicted_at } = row;
  return {
    kind,
    id,
    content_hash,
    stored_at,
    evicted_at,
    ...(row.kept_json === null ? {} : { kept: JSON.parse(row.kept_json) as unknown }),
    ...(row.seq === null ? {} : { seq: Number(row.seq) }),
  };
}

function toStoredRecord(row: RecordRow): StoredRecord {
  const stored = {
    kind: row.kind,
    id: row.id,
    record: JSON.parse(row.record_json) as unknown,
    json: row.record_json,
    content_hash: row.content_hash,
    stored_at: row.stored_at,
    seq: Number(row.seq),
  };
  return row.agent_id === null ? stored : { ...stored, agent_id: row.agent_id };
}

async function liveUnder(db: Kysely<Database>, kind: string, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('v2_records')
    .select('seq')
    .where('kind', '=', kind)
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}
