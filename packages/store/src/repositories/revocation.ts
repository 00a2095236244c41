// Repository of a jurisdiction's revocations: permanent entries, signed lists with a monotonic number and
// emergency tokens (issued attestations and signing keys: revocation-attestations.ts). D20 (list_number never
// goes down), D21.
import { type Kysely, sql } from 'kysely';
import { assertId, isValidId } from '../ids.ts';
import type { StoreDialect } from '../migrations/migration.ts';
import type { Database } from '../schema.ts';
import { inTransaction } from '../transaction.ts';
import * as attestations from './revocation-attestations.ts';
import type {
  AttestationIssuance,
  AttestationSigner,
  AttestationTimes,
  AttestResult,
  EmergencyRegisterResult,
  EmergencyRevokeResult,
  EmergencyTokenRecord,
  EmergencyTokenRegistration,
  IssuedRevocationList,
  IssueOptions,
  IssueResult,
  IssuerKeyRecord,
  ListBuilder,
  RevocationEntryRecord,
  RevocationRepository,
  RevocationRepositoryOptions,
  RevokeResult,
} from './revocation-records.ts';
import {
  assertEmergencyToken,
  assertJurisdiction,
  toEmergencyToken,
  toEntry,
  toList,
} from './revocation-rows.ts';
import type { RevocationDatabase } from './revocation-tables.ts';

export * from './revocation-records.ts';
export * from './revocation-tables.ts';

export const DEFAULT_KEEP_LISTS = 32;
/** deriveKid's key ids: 32 lowercase hex. */
const KEY_ID_LENGTH = 32;

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
    return inTransaction(this.#db as unknown as Kysely<Database>, async (tx) => {
      const trx = tx as unknown as Kysely<RevocationDatabase>;
      const current = await this.#lockState(trx, jurisdiction);
      // P468: read under the lock, so no list issued before this one (by a writer this one waited for) is dated
      // after the revocation it lacks.
      const recordedAt = this.#clock().toISOString();
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
    return inTransaction(this.#db as unknown as Kysely<Database>, async (tx) => {
      const trx = tx as unknown as Kysely<RevocationDatabase>;
      const current = await this.#lockState(trx, jurisdiction);
      if (options.onlyIf !== undefined) {
        const latest = await this.#latest(trx, jurisdiction);
        if (!options.onlyIf(latest)) return { issued: false, latest };
      }
      return { issued: true, list: await this.#issue(trx, jurisdiction, current, build) };
    });
  }

  recordAttestation(issuance: AttestationIssuance): Promise<number> {
    return attestations.recordAttestation(this.#db, issuance);
  }

  async issueAttestation(
    jurisdiction: string,
    agentId: string,
    sign: AttestationSigner,
  ): Promise<AttestResult> {
    assertJurisdiction(jurisdiction);
    assertId('agent id', agentId);
    return inTransaction(this.#db as unknown as Kysely<Database>, async (tx) => {
      const trx = tx as unknown as Kysely<RevocationDatabase>;
      // Share mode: attestations run side by side on PostgreSQL, a revocation (FOR UPDATE) waits for them and
      // they wait for it; the entry is read after the lock, so a revocation committed meanwhile is seen.
      await this.#lockState(trx, jurisdiction, 'share');
      const row = await trx
        .selectFrom('revocation_entries')
        .selectAll()
        .where('jurisdiction', '=', jurisdiction)
        .where('agent_id', '=', agentId)
        .executeTakeFirst();
      if (row !== undefined) return { status: 'revoked', entry: toEntry(row) };
      const issuance = await sign();
      if (issuance.jurisdiction !== jurisdiction || issuance.agent_id !== agentId)
        throw new TypeError('the signed attestation names another jurisdiction or agent');
      const seq = await attestations.recordAttestation(trx, issuance);
      return { status: 'issued', issuance, seq };
    });
  }

  countAttestations(jurisdiction: string, agentId?: string): Promise<number> {
    return attestations.countAttestations(this.#db, jurisdiction, agentId);
  }

  attestationTimes(jurisdiction: string, agentId: string, rprHash: string): Promise<AttestationTimes[]> {
    return attestations.attestationTimes(this.#db, jurisdiction, agentId, rprHash);
  }

  registerKey(
    jurisdiction: string,
    purpose: string,
    key: { readonly key_id: string; readonly public_key_b64: string },
    at?: Date,
  ): Promise<IssuerKeyRecord> {
    return attestations.registerKey(
      this.#db,
      jurisdiction,
      purpose,
      key,
      (at ?? this.#clock()).toISOString(),
    );
  }

  keys(jurisdiction: string, purpose: string): Promise<IssuerKeyRecord[]> {
    return attestations.keys(this.#db, jurisdiction, purpose);
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

  async emergencyTokensOfKeyIdLength(jurisdiction: string): Promise<EmergencyTokenRecord[]> {
    const rows = await this.#db
      .selectFrom('emergency_tokens')
      .selectAll()
      .where('jurisdiction', '=', jurisdiction)
      .where(sql<number>`length(agent_id)`, '=', KEY_ID_LENGTH)
      .orderBy('registered_at')
      .execute();
    return rows.map(toEmergencyToken);
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
      // The operator registering the same token takes it over (source `operator`): it vouches for it now (P211).
      const takenOver = options.replace === true && record.source !== registration.source;
      if (record.token === registration.token && !takenOver) return { status: 'unchanged', record };
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
    return inTransaction(this.#db as unknown as Kysely<Database>, async (tx) => {
      const trx = tx as unknown as Kysely<RevocationDatabase>;
      // The state lock serialises racing uses of one secret: the loser finds it used.
      const current = await this.#lockState(trx, jurisdiction);
      // P468: as in revoke, the entries' time is read under the lock.
      const recordedAt = this.#clock().toISOString();
      const row = await trx
        .selectFrom('emergency_tokens')
        .selectAll()
        .where('jurisdiction', '=', jurisdiction)
        .where('agent_id', '=', request.agent_id)
        .where('token', '=', request.token)
        // P401: locked, so an operator's replacement racing this use either waits for it (and finds the token used)
        // or commits first (and the old token is no longer found); SQLite's write transaction serialises them.
        .$if(this.#dialect === 'postgres', (qb) => qb.forUpdate())
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
        .where('token', '=', request.token)
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
   * (a racing issuer waits, then reads the new number), or `FOR SHARE` for an attestation (P400); SQLite's
   * transaction holds the write lock.
   */
  async #lockState(
    trx: Kysely<RevocationDatabase>,
    jurisdiction: string,
    mode: 'update' | 'share' = 'update',
  ): Promise<number> {
    await trx
      .insertInto('revocation_state')
      .values({ jurisdiction, list_number: 0, updated_at: this.#clock().toISOString() })
      .onConflict((oc) => oc.column('jurisdiction').doNothing())
      .execute();
    const row = await trx
      .selectFrom('revocation_state')
      .select('list_number')
      .where('jurisdiction', '=', jurisdiction)
      .$if(this.#dialect === 'postgres', (qb) => (mode === 'share' ? qb.forShare() : qb.forUpdate()))
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
