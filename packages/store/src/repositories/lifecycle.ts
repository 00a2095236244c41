// Repository of agent lifecycle state: commissioning, machine-checked atomic transitions, the vitality chain.
// Implements D16 (SPEC.md "States and transitions": moves under concurrency, GENESIS-rooted vitality chain).
import type { Kysely, Selectable } from 'kysely';
import { assertId, isValidId } from '../ids.ts';
import type { StoreDialect } from '../migrations/migration.ts';
import type { Database, LifecycleAgentsTable } from '../schema.ts';
import { inTransaction } from '../transaction.ts';

/** The `prev_report_hash` of an agent's first vitality report (D16). */
export const GENESIS = 'GENESIS';

/** State of a freshly commissioned agent (SPEC.md "Agent lifecycle"). */
export const COMMISSIONED = 'commissioned';

export interface LifecycleStatus {
  readonly agent_id: string;
  readonly state: string;
  readonly created_at: string;
  readonly updated_at: string;
  /** Hash of the latest accepted vitality report; null before the first (whose predecessor is GENESIS). */
  readonly last_vitality_hash: string | null;
  readonly vitality_count: number;
  /** Entries in the agent's history, commissioning included. */
  readonly history_count: number;
}

export interface LifecycleHistoryEntry {
  readonly seq: number;
  /** null for the commissioning entry. */
  readonly from_state: string | null;
  readonly to_state: string;
  readonly reason: string | null;
  readonly at: string;
}

export interface TransitionOptions {
  /** When given, the move applies only if this is still the current state. */
  readonly expectedFrom?: string;
  /** The state machine: for each state, the states it may move to. Passed in by the caller (core owns it). */
  readonly allowed: Readonly<Record<string, readonly string[]>>;
  readonly reason?: string;
  /**
   * Time of the move (default: the store's clock). A given time earlier than the agent's latest move (its
   * commissioning included) is refused (`before_latest`, P207); the store's clock reading earlier than it (a move
   * dated ahead within the clock skew) records the move at the latest move's time, so a history never runs backwards.
   */
  readonly at?: Date | string;
}

export type TransitionResult =
  | { readonly ok: true; readonly from: string; readonly to: string }
  | {
      readonly ok: false;
      readonly reason: 'unknown_agent' | 'not_allowed' | 'from_mismatch';
      /** The agent's state when the move was refused (absent for an unknown agent). */
      readonly current?: string;
      /** The moves the machine allows from `current` (empty for an unknown agent). */
      readonly allowedMoves: string[];
    }
  | {
      readonly ok: false;
      /** The move's given time is earlier than the agent's latest move (P207). */
      readonly reason: 'before_latest';
      readonly current: string;
      readonly allowedMoves: string[];
      /** The time of the agent's latest move, as stored. */
      readonly latestAt: string;
    };

export type VitalityAppendResult =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly reason: 'unknown_agent' | 'chain_mismatch';
      /** The hash the report had to name as its predecessor (GENESIS for an unknown agent or an empty chain). */
      readonly expected: string;
    };

export interface LifecycleRepository {
  get(agentId: string): Promise<LifecycleStatus | undefined>;
  /** Oldest first. Empty for an unknown agent. */
  history(agentId: string): Promise<LifecycleHistoryEntry[]>;
  /** Creates the agent in state `commissioned`; `exists` (and nothing changes) when it is already known. */
  commission(agentId: string, at?: Date | string): Promise<'created' | 'exists'>;
  /** Reads the current state and writes the new one in one locked transaction. */
  transition(agentId: string, to: string, opts: TransitionOptions): Promise<TransitionResult>;
  /** Compare-and-set of the agent's latest vitality hash: succeeds only if `expectedPrevHash` is it. */
  appendVitality(
    agentId: string,
    reportHash: string,
    expectedPrevHash: string,
  ): Promise<VitalityAppendResult>;
}

export interface LifecycleRepositoryOptions {
  readonly dialect: StoreDialect;
  readonly clock: () => Date;
}

export class KyselyLifecycleRepository implements LifecycleRepository {
  readonly #db: Kysely<Database>;
  readonly #dialect: StoreDialect;
  readonly #clock: () => Date;

  constructor(db: Kysely<Database>, options: LifecycleRepositoryOptions) {
    this.#db = db;
    this.#dialect = options.dialect;
    this.#clock = options.clock;
  }

  async get(agentId: string): Promise<LifecycleStatus | undefined> {
    if (!isValidId(agentId)) return undefined;
    const row = await this.#db
      .selectFrom('lifecycle_agents')
      .selectAll()
      .where('agent_id', '=', agentId)
      .executeTakeFirst();
    return row === undefined ? undefined : toStatus(row);
  }

  async history(agentId: string): Promise<LifecycleHistoryEntry[]> {
    if (!isValidId(agentId)) return [];
    const rows = await this.#db
      .selectFrom('lifecycle_history')
      .select(['seq', 'from_state', 'to_state', 'reason', 'at'])
      .where('agent_id', '=', agentId)
      .orderBy('seq')
      .execute();
    return rows.map((row) => ({ ...row, seq: Number(row.seq) }));
  }

  async commission(agentId: string, at?: Date | string): Promise<'created' | 'exists'> {
    assertId('agent id', agentId);
    const when = this.#timestamp(at);
    return inTransaction(this.#db, async (trx) => {
      const inserted = await trx
        .insertInto('lifecycle_agents')
        .values({
          agent_id: agentId,
          state: COMMISSIONED,
          created_at: when,
          updated_at: when,
          last_vitality_hash: null,
          history_count: 1,
        })
        .onConflict((oc) => oc.column('agent_id').doNothing())
        .returning('agent_id')
        .executeTakeFirst();
      if (inserted === undefined) return 'exists';
      await trx
        .insertInto('lifecycle_history')
        .values({ agent_id: agentId, from_state: null, to_state: COMMISSIONED, reason: null, at: when })
        .execute();
      return 'created';
    });
  }

  async transition(agentId: string, to: string, opts: TransitionOptions): Promise<TransitionResult> {
    if (!isValidId(agentId)) return { ok: false, reason: 'unknown_agent', allowedMoves: [] };
    const given = this.#timestamp(opts.at);
    return inTransaction(this.#db, async (trx) => {
      const row = await this.#lockAgent(trx, agentId);
      if (row === undefined) return { ok: false, reason: 'unknown_agent', allowedMoves: [] };
      const current = row.state;
      const allowedMoves = Object.hasOwn(opts.allowed, current) ? [...(opts.allowed[current] ?? [])] : [];
      if (opts.expectedFrom !== undefined && opts.expectedFrom !== current) {
        return { ok: false, reason: 'from_mismatch', current, allowedMoves };
      }
      if (!allowedMoves.includes(to)) return { ok: false, reason: 'not_allowed', current, allowedMoves };
      // P207: the agent's latest move (updated_at: every move and the commissioning set it) is the floor, compared
      // as instants (a time may carry any offset). Read under the row's lock, so no racing move falls between.
      const latestAt = row.updated_at;
      const before = Date.parse(given) < Date.parse(latestAt);
      if (before && opts.at !== undefined) {
        return { ok: false, reason: 'before_latest', current, allowedMoves, latestAt };
      }
      const when = before ? latestAt : given;
      await trx
        .updateTable('lifecycle_agents')
        .set((eb) => ({ state: to, updated_at: when, history_count: eb('history_count', '+', 1) }))
        .where('agent_id', '=', agentId)
        .execute();
      await trx
        .insertInto('lifecycle_history')
        .values({
          agent_id: agentId,
          from_state: current,
          to_state: to,
          reason: opts.reason ?? null,
          at: when,
        })
        .execute();
      return { ok: true, from: current, to };
    });
  }

  async appendVitality(
    agentId: string,
    reportHash: string,
    expectedPrevHash: string,
  ): Promise<VitalityAppendResult> {
    if (typeof reportHash !== 'string' || reportHash.length === 0 || reportHash.length > 512) {
      throw new TypeError('reportHash must be a non-empty string of at most 512 characters');
    }
    if (!isValidId(agentId)) return { ok: false, reason: 'unknown_agent', expected: GENESIS };
    return inTransaction(this.#db, async (trx) => {
      const row = await this.#lockAgent(trx, agentId);
      if (row === undefined) return { ok: false, reason: 'unknown_agent', expected: GENESIS };
      const expected = row.last_vitality_hash ?? GENESIS;
      if (expectedPrevHash !== expected) return { ok: false, reason: 'chain_mismatch', expected };
      await trx
        .updateTable('lifecycle_agents')
        .set((eb) => ({ last_vitality_hash: reportHash, vitality_count: eb('vitality_count', '+', 1) }))
        .where('agent_id', '=', agentId)
        .execute();
      return { ok: true };
    });
  }

  /**
   * Reads the agent's row for a read-then-write. PostgreSQL: SELECT … FOR UPDATE, so a racing transaction
   * waits and then reads the committed new state. SQLite: the transaction already holds the database's
   * write lock (BEGIN IMMEDIATE in the node:sqlite driver), so no other writer can be between read and write.
   */
  async #lockAgent(
    trx: Kysely<Database>,
    agentId: string,
  ): Promise<Selectable<LifecycleAgentsTable> | undefined> {
    return trx
      .selectFrom('lifecycle_agents')
      .selectAll()
      .where('agent_id', '=', agentId)
      .$if(this.#dialect === 'postgres', (qb) => qb.forUpdate())
      .executeTakeFirst();
  }

  #timestamp(at: Date | string | undefined): string {
    if (at === undefined) return this.#clock().toISOString();
    if (typeof at === 'string') {
      // Kept as given (it may be the timestamp of the signed request); it must at least be a time.
      if (Number.isNaN(Date.parse(at))) throw new TypeError(`not a timestamp: ${JSON.stringify(at)}`);
      return at;
    }
    return at.toISOString();
  }
}

function toStatus(row: Selectable<LifecycleAgentsTable>): LifecycleStatus {
  return {
    agent_id: row.agent_id,
    state: row.state,
    created_at: row.created_at,
    updated_at: row.updated_at,
    last_vitality_hash: row.last_vitality_hash,
    vitality_count: Number(row.vitality_count),
    history_count: Number(row.history_count),
  };
}
