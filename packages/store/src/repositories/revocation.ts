// Repository of a jurisdiction's revocations: permanent entries, signed lists with a monotonic number,
// issued attestations and the signing keys in use. Implements D20 (list_number never goes down) and D21.
import type { Kysely, Selectable } from 'kysely';
import { assertId, isValidId } from '../ids.ts';
import type { StoreDialect } from '../migrations/migration.ts';
import type { Database, SequenceColumn } from '../schema.ts';
import { inTransaction } from '../transaction.ts';

/** Latest list number issued per jurisdiction (the row issuers lock). */
export interface RevocationStateTable {
  jurisdiction: string;
  list_number: number | string;
  updated_at: string;
}

/** Permanent revocation entries; the reason is kept only as its hash. */
export interface RevocationEntriesTable {
  seq: SequenceColumn;
  jurisdiction: string;
  agent_id: string;
  revoked_at: string;
  reason_hash: string;
  recorded_at: string;
  /** The first list that carried the entry. */
  first_list_number: number | string;
}

/** Issued, signed lists as served (JSON text byte for byte). */
export interface RevocationListsTable {
  jurisdiction: string;
  list_number: number | string;
  list_json: string;
  issued_at: string;
  next_update: string;
  entry_count: number;
}

export interface AttestationIssuanceTable {
  seq: SequenceColumn;
  jurisdiction: string;
  agent_id: string;
  rpr_hash: string;
  key_id: string;
  attested_at: string;
  expires_at: string | null;
  attestation_json: string;
}

export interface IssuerKeysTable {
  jurisdiction: string;
  purpose: string;
  key_id: string;
  public_key_b64: string;
  first_used_at: string;
}

/** Emergency revocation tokens (migration 0006): one per agent, each usable once. */
export interface EmergencyTokensTable {
  jurisdiction: string;
  agent_id: string;
  /** `sha256:<hex>` of the 32-byte secret (the passport's emergency_revocation_token). */
  token: string;
  /** JSON array of the kids revoked with the agent. */
  kids_json: string;
  human_id: string | null;
  source: string;
  registered_at: string;
  used_at: string | null;
}

/** The tables of migrations 0004 and 0006, as Kysely sees them. */
export interface RevocationTables {
  revocation_state: RevocationStateTable;
  revocation_entries: RevocationEntriesTable;
  revocation_lists: RevocationListsTable;
  attestation_issuance: AttestationIssuanceTable;
  issuer_keys: IssuerKeysTable;
  emergency_tokens: EmergencyTokensTable;
}

type RevocationDatabase = Database & RevocationTables;

export interface RevocationEntryRecord {
  readonly agent_id: string;
  readonly revoked_at: string;
  readonly reason_hash: string;
  /** When the service recorded the revocation. */
  readonly recorded_at: string;
  /** The first list that carried it. */
  readonly first_list_number: number;
}

export interface IssuedRevocationList {
  readonly jurisdiction: string;
  readonly list_number: number;
  /** The signed list exactly as it is served. */
  readonly list_json: string;
  readonly issued_at: string;
  readonly next_update: string;
  readonly entry_count: number;
}

/** What a list builder gets: the number to use, every entry in revocation order, the previous list. */
export interface ListIssueContext {
  readonly jurisdiction: string;
  readonly listNumber: number;
  readonly entries: readonly RevocationEntryRecord[];
  readonly previous: IssuedRevocationList | undefined;
}

/** The signed list a builder returns; it is stored in the same transaction that took its number. */
export interface ListDraft {
  readonly list_json: string;
  readonly issued_at: string;
  readonly next_update: string;
}

/** Builds and signs the list; throwing rolls the whole transaction back (no number is used up). */
export type ListBuilder = (context: ListIssueContext) => ListDraft | Promise<ListDraft>;

export type RevokeResult =
  | { readonly status: 'created'; readonly entry: RevocationEntryRecord; readonly list: IssuedRevocationList }
  | { readonly status: 'exists'; readonly entry: RevocationEntryRecord };

export type IssueResult =
  | { readonly issued: true; readonly list: IssuedRevocationList }
  | { readonly issued: false; readonly latest: IssuedRevocationList | undefined };

export interface IssueOptions {
  /** Checked against the latest list under the lock: false skips issuing (another replica already did). */
  readonly onlyIf?: (latest: IssuedRevocationList | undefined) => boolean;
}

export interface AttestationIssuance {
  readonly jurisdiction: string;
  readonly agent_id: string;
  readonly rpr_hash: string;
  readonly key_id: string;
  readonly attested_at: string;
  readonly expires_at: string | null;
  readonly attestation_json: string;
}

export interface IssuerKeyRecord {
  readonly key_id: string;
  readonly public_key_b64: string;
  readonly first_used_at: string;
}

/** Who vouched for a token: a verified bundle's passport, or the operator. */
export type EmergencyTokenSource = 'bundle' | 'operator';

export interface EmergencyTokenRecord {
  readonly agent_id: string;
  readonly token: string;
  /** The agent's own key ids, revoked with it. */
  readonly kids: readonly string[];
  readonly human_id: string | null;
  readonly source: EmergencyTokenSource;
  readonly registered_at: string;
  /** When the token was used (it is good once); null while unused. */
  readonly used_at: string | null;
}

export interface EmergencyTokenRegistration {
  readonly agent_id: string;
  readonly token: string;
  readonly kids: readonly string[];
  readonly human_id: string | null;
  readonly source: EmergencyTokenSource;
}

/**
 * `created`: new; `unchanged`: the same token was already registered (kept as it was); `replaced`: the
 * operator replaced an unused token; `conflict`: another token is registered and replacing was not
 * allowed; `used`: the registered token was already used (nothing changes any more).
 */
export type EmergencyRegisterResult = {
  readonly status: 'created' | 'unchanged' | 'replaced' | 'conflict' | 'used';
  readonly record: EmergencyTokenRecord;
};

export type EmergencyRevokeResult =
  | {
      readonly status: 'revoked';
      readonly record: EmergencyTokenRecord;
      /** Ids (agent id, then kids) newly entered; ones already revoked are left as they were. */
      readonly added: readonly string[];
      readonly list: IssuedRevocationList;
    }
  /** The token was used already, or this secret was used for another agent. */
  | { readonly status: 'used' }
  /** No such token is registered for the agent any more (replaced meanwhile). */
  | { readonly status: 'missing' };

export interface RevocationRepository {
  getEntry(jurisdiction: string, agentId: string): Promise<RevocationEntryRecord | undefined>;
  /** Every entry of the jurisdiction, in revocation order. */
  entries(jurisdiction: string): Promise<RevocationEntryRecord[]>;
  countEntries(jurisdiction: string): Promise<number>;
  latestList(jurisdiction: string): Promise<IssuedRevocationList | undefined>;
  getList(jurisdiction: string, listNumber: number): Promise<IssuedRevocationList | undefined>;
  /**
   * Records a revocation and issues the next list carrying it, in one transaction. An agent already
   * revoked is `exists` and nothing changes (revocations are permanent and never rewritten).
   */
  revoke(
    jurisdiction: string,
    entry: { readonly agent_id: string; readonly revoked_at: string; readonly reason_hash: string },
    build: ListBuilder,
  ): Promise<RevokeResult>;
  /** Issues the next list (number = latest + 1) from the current entries, unless `onlyIf` says no. */
  issueList(jurisdiction: string, build: ListBuilder, options?: IssueOptions): Promise<IssueResult>;
  /** Appends an issued attestation to the jurisdiction's log; returns its sequence number. */
  recordAttestation(issuance: AttestationIssuance): Promise<number>;
  countAttestations(jurisdiction: string, agentId?: string): Promise<number>;
  /** Whether an attestation was issued for this agent and RPR hash (expired ones count: it was vouched for). */
  hasAttestation(jurisdiction: string, agentId: string, rprHash: string): Promise<boolean>;
  /** Notes a signing key the first time it is used; returns its record (first use time kept). */
  registerKey(
    jurisdiction: string,
    purpose: string,
    key: { readonly key_id: string; readonly public_key_b64: string },
    at?: Date,
  ): Promise<IssuerKeyRecord>;
  keys(jurisdiction: string, purpose: string): Promise<IssuerKeyRecord[]>;
  getEmergencyToken(jurisdiction: string, agentId: string): Promise<EmergencyTokenRecord | undefined>;
  /** Registers an agent's emergency token; an existing one is replaced only with `replace` and unused. */
  registerEmergencyToken(
    jurisdiction: string,
    registration: EmergencyTokenRegistration,
    options?: { readonly replace?: boolean },
  ): Promise<EmergencyRegisterResult>;
  /**
   * Uses the agent's token (the caller has checked the secret against `token`): marks it used, enters
   * the agent id and its kids, and issues the next list, in one transaction (durable before it returns).
   */
  emergencyRevoke(
    jurisdiction: string,
    request: {
      readonly agent_id: string;
      readonly token: string;
      readonly revoked_at: string;
      readonly reason_hash: string;
    },
    build: ListBuilder,
  ): Promise<EmergencyRevokeResult>;
}

export interface RevocationRepositoryOptions {
  readonly dialect: StoreDialect;
  readonly clock: () => Date;
  /** Issued lists kept per jurisdiction, newest first (default 32); entries are never dropped. */
  readonly keepLists?: number;
}

export const DEFAULT_KEEP_LISTS = 32;
const JURISDICTION_PATTERN = /^[\w:.-]{1,64}$/;

function assertJurisdiction(value: string): void {
  if (typeof value !== 'string' || !JURISDICTION_PATTERN.test(value)) {
    throw new TypeError('jurisdiction must match ^[\\w:.\\-]{1,64}$');
  }
}

export class KyselyRevocationRepository implements RevocationRepository {
  readonly #db: Kysely<RevocationDatabase>;
  readonly #dialect: StoreDialect;
  readonly #clock: () => Date;
  readonly #keepLists: number;

  constructor(db: Kysely<Database>, options: RevocationRepositoryOptions) {
    // The 0004 tables are declared beside this repository (RevocationTables); same connection.
    this.#db = db as unknown as Kysely<RevocationDatabase>;
    this.#dialect = options.dialect;
    this.#clock = options.clock;
    this.#keepLists = Math.max(1, options.keepLists ?? DEFAULT_KEEP_LISTS);
  }

  async getEntry(jurisdiction: string, agentId: string): Promise<RevocationEntryRecord | undefined> {
    if (!isValidId(agentId)) return undefined;
    const row = await this.#db
      .selectFrom('revocation_entries')
      .selectAll()
      .where('jurisdiction', '=', jurisdiction)
      .where('agent_id', '=', agentId)
      .executeTakeFirst();
    return row === undefined ? undefined : toEntry(row);
  }

  async entries(jurisdiction: string): Promise<RevocationEntryRecord[]> {
    return (await this.#entries(this.#db, jurisdiction)).map(toEntry);
  }

  async countEntries(jurisdiction: string): Promise<number> {
    const row = await this.#db
      .selectFrom('revocation_entries')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('jurisdiction', '=', jurisdiction)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async latestList(jurisdiction: string): Promise<IssuedRevocationList | undefined> {
    return this.#latest(this.#db, jurisdiction);
  }

  async getList(jurisdiction: string, listNumber: number): Promise<IssuedRevocationList | undefined> {
    const row = await this.#db
      .selectFrom('revocation_lists')
      .selectAll()
      .where('jurisdiction', '=', jurisdiction)
      .where('list_number', '=', listNumber)
      .executeTakeFirst();
    return row === undefined ? undefined : toList(row);
  }

  async revoke(
    jurisdiction: string,
    entry: { readonly agent_id: string; readonly revoked_at: string; readonly reason_hash: string },
    build: ListBuilder,
  ): Promise<RevokeResult> {
    assertJurisdiction(jurisdiction);
    assertId('agent id', entry.agent_id);
    if (Number.isNaN(Date.parse(entry.revoked_at))) throw new TypeError('revoked_at must be a timestamp');
    if (!/^sha256:[0-9a-f]{64}$/.test(entry.reason_hash))
      throw new TypeError('reason_hash must be sha256:<hex>');
    const recordedAt = this.#clock().toISOString();
    return inTransaction(this.#db as unknown as Kysely<Database>, async (tx) => {
      const trx = tx as unknown as Kysely<RevocationDatabase>;
      const current = await this.#lockState(trx, jurisdiction, recordedAt);
      const inserted = await trx
        .insertInto('revocation_entries')
        .values({
          jurisdiction,
          agent_id: entry.agent_id,
          revoked_at: entry.revoked_at,
          reason_hash: entry.reason_hash,
          recorded_at: recordedAt,
          first_list_number: current + 1,
        })
        .onConflict((oc) => oc.columns(['jurisdiction', 'agent_id']).doNothing())
        .returningAll()
        .executeTakeFirst();
      if (inserted === undefined) {
        const existing = await trx
          .selectFrom('revocation_entries')
          .selectAll()
          .where('jurisdiction', '=', jurisdiction)
          .where('agent_id', '=', entry.agent_id)
          .executeTakeFirstOrThrow();
        return { status: 'exists', entry: toEntry(existing) };
      }
      const list = await this.#issue(trx, jurisdiction, current, build);
      return { status: 'created', entry: toEntry(inserted), list };
    });
  }

  async issueList(
    jurisdiction: string,
    build: ListBuilder,
    options: IssueOptions = {},
  ): Promise<IssueResult> {
    assertJurisdiction(jurisdiction);
    const now = this.#clock().toISOString();
    return inTransaction(this.#db as unknown as Kysely<Database>, async (tx) => {
      const trx = tx as unknown as Kysely<RevocationDatabase>;
      const current = await this.#lockState(trx, jurisdiction, now);
      if (options.onlyIf !== undefined) {
        const latest = await this.#latest(trx, jurisdiction);
        if (!options.onlyIf(latest)) return { issued: false, latest };
      }
      return { issued: true, list: await this.#issue(trx, jurisdiction, current, build) };
    });
  }

  async recordAttestation(issuance: AttestationIssuance): Promise<number> {
    assertJurisdiction(issuance.jurisdiction);
    assertId('agent id', issuance.agent_id);
    const row = await this.#db
      .insertInto('attestation_issuance')
      .values({ ...issuance })
      .returning('seq')
      .executeTakeFirstOrThrow();
    return Number(row.seq);
  }

  async countAttestations(jurisdiction: string, agentId?: string): Promise<number> {
    const row = await this.#db
      .selectFrom('attestation_issuance')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('jurisdiction', '=', jurisdiction)
      .$if(agentId !== undefined, (qb) => qb.where('agent_id', '=', agentId as string))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async hasAttestation(jurisdiction: string, agentId: string, rprHash: string): Promise<boolean> {
    const row = await this.#db
      .selectFrom('attestation_issuance')
      .select('seq')
      .where('jurisdiction', '=', jurisdiction)
      .where('agent_id', '=', agentId)
      .where('rpr_hash', '=', rprHash)
      .limit(1)
      .executeTakeFirst();
    return row !== undefined;
  }

  async registerKey(
    jurisdiction: string,
    purpose: string,
    key: { readonly key_id: string; readonly public_key_b64: string },
    at?: Date,
  ): Promise<IssuerKeyRecord> {
    assertJurisdiction(jurisdiction);
    await this.#db
      .insertInto('issuer_keys')
      .values({
        jurisdiction,
        purpose,
        key_id: key.key_id,
        public_key_b64: key.public_key_b64,
        first_used_at: (at ?? this.#clock()).toISOString(),
      })
      .onConflict((oc) => oc.columns(['jurisdiction', 'purpose', 'key_id']).doNothing())
      .execute();
    return this.#db
      .selectFrom('issuer_keys')
      .select(['key_id', 'public_key_b64', 'first_used_at'])
      .where('jurisdiction', '=', jurisdiction)
      .where('purpose', '=', purpose)
      .where('key_id', '=', key.key_id)
      .executeTakeFirstOrThrow();
  }

  async keys(jurisdiction: string, purpose: string): Promise<IssuerKeyRecord[]> {
    return this.#db
      .selectFrom('issuer_keys')
      .select(['key_id', 'public_key_b64', 'first_used_at'])
      .where('jurisdiction', '=', jurisdiction)
      .where('purpose', '=', purpose)
      .orderBy('first_used_at')
      .orderBy('key_id')
      .execute();
  }

  async getEmergencyToken(jurisdiction: string, agentId: string): Promise<EmergencyTokenRecord | undefined> {
    if (!isValidId(agentId)) return undefined;
    const row = await this.#db
      .selectFrom('emergency_tokens')
      .selectAll()
      .where('jurisdiction', '=', jurisdiction)
      .where('agent_id', '=', agentId)
      .executeTakeFirst();
    return row === undefined ? undefined : toEmergencyToken(row);
  }

  async registerEmergencyToken(
    jurisdiction: string,
    registration: EmergencyTokenRegistration,
    options: { readonly replace?: boolean } = {},
  ): Promise<EmergencyRegisterResult> {
    assertJurisdiction(jurisdiction);
    assertId('agent id', registration.agent_id);
    assertEmergencyToken(registration.token);
    for (const kid of registration.kids) assertId('kid', kid);
    const now = this.#clock().toISOString();
    return inTransaction(this.#db as unknown as Kysely<Database>, async (tx) => {
      const trx = tx as unknown as Kysely<RevocationDatabase>;
      const values = {
        token: registration.token,
        kids_json: JSON.stringify([...new Set(registration.kids)]),
        human_id: registration.human_id,
        source: registration.source,
        registered_at: now,
      };
      const inserted = await trx
        .insertInto('emergency_tokens')
        .values({ jurisdiction, agent_id: registration.agent_id, used_at: null, ...values })
        .onConflict((oc) => oc.columns(['jurisdiction', 'agent_id']).doNothing())
        .returningAll()
        .executeTakeFirst();
      if (inserted !== undefined) return { status: 'created', record: toEmergencyToken(inserted) };
      const existing = await trx
        .selectFrom('emergency_tokens')
        .selectAll()
        .where('jurisdiction', '=', jurisdiction)
        .where('agent_id', '=', registration.agent_id)
        .$if(this.#dialect === 'postgres', (qb) => qb.forUpdate())
        .executeTakeFirstOrThrow();
      const record = toEmergencyToken(existing);
      if (record.used_at !== null) return { status: 'used', record };
      if (record.token === registration.token) return { status: 'unchanged', record };
      if (options.replace !== true) return { status: 'conflict', record };
      const updated = await trx
        .updateTable('emergency_tokens')
        .set(values)
        .where('jurisdiction', '=', jurisdiction)
        .where('agent_id', '=', registration.agent_id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return { status: 'replaced', record: toEmergencyToken(updated) };
    });
  }

  async emergencyRevoke(
    jurisdiction: string,
    request: {
      readonly agent_id: string;
      readonly token: string;
      readonly revoked_at: string;
      readonly reason_hash: string;
    },
    build: ListBuilder,
  ): Promise<EmergencyRevokeResult> {
    assertJurisdiction(jurisdiction);
    assertId('agent id', request.agent_id);
    assertEmergencyToken(request.token);
    if (Number.isNaN(Date.parse(request.revoked_at))) throw new TypeError('revoked_at must be a timestamp');
    if (!/^sha256:[0-9a-f]{64}$/.test(request.reason_hash))
      throw new TypeError('reason_hash must be sha256:<hex>');
    const recordedAt = this.#clock().toISOString();
    return inTransaction(this.#db as unknown as Kysely<Database>, async (tx) => {
      const trx = tx as unknown as Kysely<RevocationDatabase>;
      // The state lock serialises racing uses of one secret: the loser finds it used.
      const current = await this.#lockState(trx, jurisdiction, recordedAt);
      const row = await trx
        .selectFrom('emergency_tokens')
        .selectAll()
        .where('jurisdiction', '=', jurisdiction)
        .where('agent_id', '=', request.agent_id)
        .where('token', '=', request.token)
        .executeTakeFirst();
      if (row === undefined) return { status: 'missing' };
      const usedElsewhere = await trx
        .selectFrom('emergency_tokens')
        .select('agent_id')
        .where('jurisdiction', '=', jurisdiction)
        .where('token', '=', request.token)
        .where('used_at', 'is not', null)
        .executeTakeFirst();
      if (row.used_at !== null || usedElsewhere !== undefined) return { status: 'used' };
      const used = await trx
        .updateTable('emergency_tokens')
        .set({ used_at: recordedAt })
        .where('jurisdiction', '=', jurisdiction)
        .where('agent_id', '=', request.agent_id)
        .returningAll()
        .executeTakeFirstOrThrow();
      const record = toEmergencyToken(used);
      const added: string[] = [];
      for (const id of [record.agent_id, ...record.kids]) {
        const inserted = await trx
          .insertInto('revocation_entries')
          .values({
            jurisdiction,
            agent_id: id,
            revoked_at: request.revoked_at,
            reason_hash: request.reason_hash,
            recorded_at: recordedAt,
            first_list_number: current + 1,
          })
          .onConflict((oc) => oc.columns(['jurisdiction', 'agent_id']).doNothing())
          .returning('agent_id')
          .executeTakeFirst();
        if (inserted !== undefined) added.push(id);
      }
      // Issued even when every id was already listed: the holder gets a list naming all of them now.
      const list = await this.#issue(trx, jurisdiction, current, build);
      return { status: 'revoked', record, added, list };
    });
  }

  /**
   * Creates the jurisdiction's state row if missing and locks it: PostgreSQL `SELECT … FOR UPDATE`
   * (a racing issuer waits, then reads the new number); SQLite's transaction holds the write lock.
   */
  async #lockState(trx: Kysely<RevocationDatabase>, jurisdiction: string, now: string): Promise<number> {
    await trx
      .insertInto('revocation_state')
      .values({ jurisdiction, list_number: 0, updated_at: now })
      .onConflict((oc) => oc.column('jurisdiction').doNothing())
      .execute();
    const row = await trx
      .selectFrom('revocation_state')
      .select('list_number')
      .where('jurisdiction', '=', jurisdiction)
      .$if(this.#dialect === 'postgres', (qb) => qb.forUpdate())
      .executeTakeFirstOrThrow();
    return Number(row.list_number);
  }

  async #issue(
    trx: Kysely<RevocationDatabase>,
    jurisdiction: string,
    current: number,
    build: ListBuilder,
  ): Promise<IssuedRevocationList> {
    const listNumber = current + 1;
    const entries = (await this.#entries(trx, jurisdiction)).map(toEntry);
    const previous = await this.#latest(trx, jurisdiction);
    const draft = await build({ jurisdiction, listNumber, entries, previous });
    const list: IssuedRevocationList = {
      jurisdiction,
      list_number: listNumber,
      list_json: draft.list_json,
      issued_at: draft.issued_at,
      next_update: draft.next_update,
      entry_count: entries.length,
    };
    await trx.insertInto('revocation_lists').values(list).execute();
    await trx
      .updateTable('revocation_state')
      .set({ list_number: listNumber, updated_at: draft.issued_at })
      .where('jurisdiction', '=', jurisdiction)
      .execute();
    await trx
      .deleteFrom('revocation_lists')
      .where('jurisdiction', '=', jurisdiction)
      .where('list_number', '<=', listNumber - this.#keepLists)
      .execute();
    return list;
  }

  #entries(db: Kysely<RevocationDatabase>, jurisdiction: string) {
    return db
      .selectFrom('revocation_entries')
      .selectAll()
      .where('jurisdiction', '=', jurisdiction)
      .orderBy('seq')
      .execute();
  }

  async #latest(
    db: Kysely<RevocationDatabase>,
    jurisdiction: string,
  ): Promise<IssuedRevocationList | undefined> {
    const row = await db
      .selectFrom('revocation_lists')
      .selectAll()
      .where('jurisdiction', '=', jurisdiction)
      .orderBy('list_number', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row === undefined ? undefined : toList(row);
  }
}

function toEntry(row: Selectable<RevocationEntriesTable>): RevocationEntryRecord {
  return {
    agent_id: row.agent_id,
    revoked_at: row.revoked_at,
    reason_hash: row.reason_hash,
    recorded_at: row.recorded_at,
    first_list_number: Number(row.first_list_number),
  };
}

function assertEmergencyToken(value: string): void {
  if (typeof value !== 'string' || !/^sha256:[0-9a-f]{64}$/.test(value)) {
    throw new TypeError('emergency token must be sha256:<64 hex>');
  }
}

function toEmergencyToken(row: Selectable<EmergencyTokensTable>): EmergencyTokenRecord {
  const kids = JSON.parse(row.kids_json) as unknown;
  return {
    agent_id: row.agent_id,
    token: row.token,
    kids: Array.isArray(kids) ? kids.filter((k): k is string => typeof k === 'string') : [],
    human_id: row.human_id,
    source: row.source === 'operator' ? 'operator' : 'bundle',
    registered_at: row.registered_at,
    used_at: row.used_at,
  };
}

function toList(row: Selectable<RevocationListsTable>): IssuedRevocationList {
  return {
    jurisdiction: row.jurisdiction,
    list_number: Number(row.list_number),
    list_json: row.list_json,
    issued_at: row.issued_at,
    next_update: row.next_update,
    entry_count: Number(row.entry_count),
  };
}
