// Repository of the key directory: which subject (agent or human id) each kid was bound to by a verified bundle.
// Implements issue 15 item 1 (insert-if-new, idempotent, safe across replicas; lookup by kid; expiry honoured)
// and item 5 (rotation, P45: a newer passport retires the keys it no longer lists; a marked key is retired),
// and P174 (a binding that never authorised a write and was not proven again for a set age can be pruned), P185
// (never the bindings of an id a stored record names).
import { DEFAULT_MAX_CLOCK_SKEW_MS, instantOf } from '@proto/core';
import { type ColumnType, type ExpressionBuilder, type Kysely, sql, type Transaction } from 'kysely';
import type { StoreDialect } from '../migrations/index.ts';
import type { Database } from '../schema.ts';
import { inTransaction } from '../transaction.ts';

/** Kysely table types of migrations 0008, 0012, 0015 and 0016 (kept here so the key directory storage is one file). */
export interface KeyDirectoryTables {
  key_bindings: {
    kid: string;
    subject: string;
    alg: string;
    public_key_b64: string;
    /** `passport` (the agent's own key) or `principal` (an RPR binding key). */
    role: string;
    /** The verified bundle's hash that proved the binding. */
    evidence: string;
    expires_at: string | null;
    bound_at: string;
    /** Set once, never cleared: a retired binding never authorises again (P45). */
    retired_at: string | null;
    /** The verified bundle's hash that retired it. */
    retired_by: string | null;
    /** The retirement's number from key_retirement_counter (0021, P472); 0 for retirements made before it. */
    retired_seq: ColumnType<number | string | null, number | null, number>;
    /** Set once a /v2 write was authorised by it, never cleared: such a binding is never pruned (P174). */
    authorised_at: string | null;
    /** When a verified bundle last proved it (null only on rows a newer release wrote without it). */
    seen_at: string | null;
    /** A passport key's own `created_at` (0017, P230); null for a principal's key and rows bound before 0017. */
    key_created_at: string | null;
  };
  key_passports: { agent_id: string; created_at: string; evidence: string };
  /** Ids a stored /v2 record names (0016): their bindings are never pruned (P185). Never deleted. */
  key_record_subjects: { subject: string; since: string };
  /**
   * P566 (0025): a dispute's hold of a party it names but that did not sign it (its respondent, P537), released once
   * the dispute is settled; `filer` is the initiator that placed it, whose open holds are bounded.
   */
  key_dispute_holds: { dispute_id: string; subject: string; filer: string; since: string };
  /** One row (id 1): the last retirement number given (0021, P472). */
  key_retirement_counter: { id: number; last_seq: ColumnType<number | string, number, number> };
  /**
   * Each agent's current principal: the human of its newest placed RPR, by `issued_at` (0026, P560), and that RPR's
   * own `expires_at` as written (0027, P601; null: none, or placed before 0027).
   */
  key_principals: {
    agent_id: string;
    human_id: string;
    issued_at: string;
    evidence: string;
    expires_at: ColumnType<string | null, string | null | undefined, string | null>;
  };
  /** The agent a verified bundle first bound under an RPR, by the RPR payload's hash (0027, P600). Never deleted. */
  key_rpr_agents: { rpr_hash: string; agent_id: string; evidence: string; bound_at: string };
}

type KeyDirectoryDatabase = Database & KeyDirectoryTables;

export interface KeyBindingRow {
  readonly kid: string;
  readonly subject: string;
  readonly alg: string;
  readonly publicKeyB64: string;
  readonly role: 'passport' | 'principal';
  readonly evidence: string;
  readonly expiresAt: string | null;
  readonly boundAt: string;
  /**
   * A passport key's own `created_at`, as an ISO instant read at its earliest: a lookup given the operator's
   * maximum key age applies it to this (P230). Null or absent: not known (a principal's key, a row bound before
   * migration 0017), so only `expiresAt`, capped by the age when it was bound (P204), applies.
   */
  readonly keyCreatedAt?: string | null;
}

/** A binding retired by a verified bundle (P45): when, and by which bundle's hash. */
export interface RetiredKeyBinding {
  readonly kid: string;
  readonly subject: string;
  readonly role: 'passport' | 'principal';
  readonly retiredAt: string;
  readonly retiredBy: string | null;
}

/** A binding as a verified bundle proves it (the store adds when). */
export type NewKeyBinding = Omit<KeyBindingRow, 'boundAt'>;

/** What one verified bundle says about an agent's keys (issue 15 item 5). */
export interface PassportKeys {
  readonly agentId: string;
  /** The passport's `created_at`; unreadable or absent: the passport cannot be placed, so it is never newest. */
  readonly createdAt: string | undefined;
  /** The verified bundle's hash. */
  readonly evidence: string;
  /** Kids the passport lists as active. */
  readonly activeKids: readonly string[];
  /** Kids the passport or RPR marks other than active (revoked, …): retired for this bundle's subjects. */
  readonly retiredKids: readonly string[];
  /**
   * The ids this bundle speaks for (its agent, its human). A mark retires a kid only for them: a bundle
   * cannot retire another agent's binding by listing that agent's (public) kid as revoked.
   */
  readonly subjects: readonly string[];
  /** The bindings the bundle proves (passport keys → agent; RPR binding keys → human and agent). */
  readonly bindings: readonly NewKeyBinding[];
  /** The kid that signed the passport, and the bundle's human id and the kid that signed its RPR. */
  readonly passportSignerKid?: string | undefined;
  readonly humanId?: string | undefined;
  readonly principalSignerKid?: string | undefined;
  /** The RPR's `issued_at`: orders the agent's principals (P560). Unreadable or absent: never placed. */
  readonly principalIssuedAt?: string | undefined;
  /** The RPR's `expires_at` as written (null: it never expires): its human is current only until then (P601). */
  readonly principalExpiresAt?: string | null | undefined;
  /**
   * The RPR payload's hash (`manifest.rpr_hash`): the first agent bound under it keeps it, and a second agent id under
   * the same RPR is a copy that binds nothing (P600). Absent: no such rule (a bundle with no RPR).
   */
  readonly rprHash?: string | undefined;
}

export interface PassportOutcome {
  /**
   * Newest: this passport's key set now decides; older: its passport keys were not bound; future: dated
   * beyond the clock skew ahead of now, so it was placed nowhere and its passport keys were not bound (P173);
   * foreign: the passport was not signed by a live key of the agent, or the agent is new here and its RPR names a
   * human known here that none of the human's live keys signed (P584), or its RPR was first bound here for another
   * agent (P600), so nothing was bound or retired for it.
   */
  readonly order: 'newest' | 'same' | 'older' | 'future' | 'foreign';
  readonly bound: number;
  readonly retired: number;
  /** The kids this application retired (for any subject), each once: the caller's filter learns them at once (P469). */
  readonly retiredKids: readonly string[];
  /** P600: the agent first bound here under this bundle's RPR, when that is another agent (a copy); absent otherwise. */
  readonly rprAgent?: string;
}

/**
 * Where a retirement stands in (retired_seq, kid, subject) order (P472; P410 paged by retired_at): `seq` is the
 * retirement's number, given in commit order, so nothing committed later is ever placed before a position read.
 */
export interface RetiredPosition {
  readonly seq: number;
  readonly kid: string;
  readonly subject: string;
}

export interface KeyDirectoryRepository {
  /** Stores the bindings not known yet (the first evidence of a (kid, subject) pair is kept); returns how many were new. */
  bind(bindings: readonly NewKeyBinding[]): Promise<number>;
  /**
   * Applies a verified bundle: marked kids are retired; a passport newer than any seen for the agent retires
   * the agent's passport keys it no longer lists; an older one binds no passport key (a replayed old bundle
   * must not bring a rotated key back). Then binds what is new. One transaction.
   */
  applyPassport(passport: PassportKeys): Promise<PassportOutcome>;
  /** Every subject a kid is bound to, expired and retired bindings left out. */
  /**
   * The live bindings of `kid`: not retired, not expired, and, given the operator's maximum key age, not held by a
   * passport key older than it (P230).
   */
  lookup(kid: string, options?: { readonly maxKeyAgeDays?: number }): Promise<KeyBindingRow[]>;
  /**
   * Whether `agentId` has a passport key bound here, neither retired nor expired: such an agent cannot be claimed
   * by a stranger's bundle (P45), so its commissioning can require a key bound to the agent itself (P205).
   */
  hasLivePassportKeys(agentId: string): Promise<boolean>;
  /**
   * The kids bound here to `subject` in `role`, neither retired nor expired: the keys P45's continuity takes as that
   * agent's (passport) or human's (principal). /verify reads them, cached, to warn of a bundle none of them signed
   * (P501, P503, P555). A plain read: it takes no lock, so an application in progress does not hold it up.
   */
  liveKids(subject: string, role: 'passport' | 'principal'): Promise<string[]>;
  /**
   * P375: the other ids that an RPR binding key bound to `agentId` is bound to as well: the agent's principals by its
   * verified bundles (and their other agents sharing the key), retired and expired bindings included. Who speaks
   * through the agent's principal keys, for the conflict-of-interest checks of a dispute's panel.
   */
  principalsOf(agentId: string): Promise<string[]>;
  /**
   * P560: the agent's current principal, the human of the newest RPR (by `issued_at`, within the clock skew) of a
   * verified bundle that spoke for both the agent and that human (P45); undefined when no such bundle was applied
   * since migration 0026, and when that RPR's `expires_at` has passed (P601: none until a newer RPR). Every human ever
   * bound keeps its RPR keys' bindings to the agent: only this tells them apart.
   */
  currentPrincipal(agentId: string): Promise<string | undefined>;
  /**
   * P600: the agent a verified bundle first bound under the RPR whose payload hash is `rprHash`; undefined when none.
   * /verify warns of a bundle naming another agent under it.
   */
  rprAgent(rprHash: string): Promise<string | undefined>;
  /**
   * Records that `kid` authorised a write for `subjects` (P174): from then on those bindings are never pruned.
   * False when none of them is bound and unretired any more (pruned or retired since the lookup): the write
   * must then be refused, or a binding pruned a moment ago would have authorised it.
   */
  markAuthorised(kid: string, subjects: readonly string[]): Promise<boolean>;
  /**
   * Records that a /v2 record naming `subjects` is about to be stored (P185): from then on no binding of theirs is
   * pruned, whichever key (or the operator token) authorised the write, and whichever key they bind later.
   */
  holdSubjects(subjects: readonly string[]): Promise<void>;
  /**
   * P566: dispute `disputeId`, filed by `filer`, holds the bindings of `subjects` (its respondent) until
   * `releaseDisputeHolds`, or until it is older than the prune's `disputeHeldSince` (P606). With `limit`, refused
   * (false, nothing held) when `filer` already holds that many other disputes placed since `heldSince`. P605: one
   * filer's holds are counted and written one transaction at a time (PostgreSQL: an advisory lock on the filer, held
   * to the commit of the caller's transaction; SQLite: one writer), so concurrent filings never pass the bound. Call
   * it in the transaction that stores the filing: a refused write then leaves no hold (P607). True when held (or
   * already held by this dispute; a hold placed again keeps its first `since`).
   */
  holdForDispute(
    disputeId: string,
    filer: string,
    subjects: readonly string[],
    options?: { readonly limit?: number | undefined; readonly heldSince?: Date | undefined },
  ): Promise<boolean>;
  /** P566: drops dispute `disputeId`'s holds (it is settled); how many rows went. */
  releaseDisputeHolds(disputeId: string): Promise<number>;
  /**
   * Deletes up to `limit` bindings that never authorised a write, are not retired, whose subject no stored record
   * names nor an unsettled dispute holds (since `disputeHeldSince` when given, P606), and were last proven by a
   * verified bundle before `provenBefore`; then the newest-passport time of agents left with no binding at all.
   * Retired bindings are never deleted: pruning must not undo a retirement. Returns how many bindings went.
   */
  pruneUnused(
    provenBefore: Date,
    limit: number,
    options?: { readonly disputeHeldSince?: Date | undefined },
  ): Promise<number>;
  /**
   * The retired bindings of `kids` to any of `subjects` (P282), at most 100: POST /verify warns of a bundle one of
   * them signed for its agent or human.
   */
  retiredBindings(kids: readonly string[], subjects: readonly string[]): Promise<RetiredKeyBinding[]>;
  /**
   * Up to `limit` retirements after `after` in (retired_seq, kid, subject) order, oldest first (P410, P472): a
   * verification process pages through them to keep its filter of retired kids (index key_bindings_by_retired_seq,
   * 0021). Numbers are given in commit order, so a position read never has a retirement committed before it later.
   */
  retiredSince(after: RetiredPosition | null, limit: number): Promise<RetiredPosition[]>;
  /**
   * Numbers the retirements that have none (P472): written by a replica still on a release before migration 0021
   * during a rolling upgrade. They then come after every position already read. Returns how many; one indexed query
   * when there are none.
   */
  numberUnnumberedRetirements(): Promise<number>;
  /** How many bindings the directory holds (retired included): counts every row. */
  size(): Promise<number>;
  /**
   * About how many bindings the directory holds, without reading the table: PostgreSQL's planner estimate
   * (`pg_class.reltuples`, as of the last ANALYZE or VACUUM; undefined before the first), SQLite's largest rowid
   * (exact while nothing was deleted, an upper bound after).
   */
  estimatedSize(): Promise<number | undefined>;
}

/**
 * Compared as instants, not strings: a passport may write `2026-01-01T05:00:00+05:00` or omit the
 * milliseconds. An unreadable expiry counts as expired (the key cannot be shown to be current); a leap second
 * ends no later than written (P178).
 */
function notExpired(expiresAt: string, now: number): boolean {
  const at = instantOf(expiresAt, 'earliest');
  return Number.isFinite(at) && at > now;
}

const DAY_MS = 86_400_000;

/** Whether `signer` may speak for a subject whose live kids of a role are `live`: it has none yet, or `signer` is one. */
function continuous(live: readonly string[], signer: string | undefined): boolean {
  return live.length === 0 || (signer !== undefined && live.includes(signer));
}

/**
 * A key /verify refuses as a signer by its own `created_at`: past the maximum age as it stands now (from `created_at`
 * + the age on, the same instant as its expiry check; P204, P230), or dated beyond the clock skew ahead, whose age
 * cannot be counted (P231). Unknown creation (a principal's key before 0017): neither.
 */
function agedOut(keyCreatedAt: string | null, maxKeyAgeDays: number | undefined, now: number): boolean {
  if (keyCreatedAt === null) return false;
  const created = instantOf(keyCreatedAt, 'earliest');
  if (!Number.isFinite(created)) return true;
  if (created - now > DEFAULT_MAX_CLOCK_SKEW_MS) return true;
  return maxKeyAgeDays !== undefined && created + maxKeyAgeDays * DAY_MS <= now;
}

/** A passport's `created_at`; a leap second reads as the next midnight, no earlier, for the P173 horizon (P178). */
function normalisedInstant(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const at = instantOf(text, 'latest');
  return Number.isFinite(at) ? new Date(at).toISOString() : undefined;
}

export class KyselyKeyDirectoryRepository implements KeyDirectoryRepository {
  readonly #db: Kysely<KeyDirectoryDatabase>;
  readonly #clock: () => Date;
  readonly #maxClockSkewMs: number;
  readonly #dialect: StoreDialect;

  constructor(
    db: Kysely<Database>,
    options: {
      readonly dialect: StoreDialect;
      readonly clock: () => Date;
      /** How far a passport's `created_at` may lie ahead of now and still be placed (P173). */
      readonly maxClockSkewMs?: number | undefined;
    },
  ) {
    this.#db = db as unknown as Kysely<KeyDirectoryDatabase>;
    this.#clock = options.clock;
    this.#dialect = options.dialect;
    this.#maxClockSkewMs = options.maxClockSkewMs ?? DEFAULT_MAX_CLOCK_SKEW_MS;
  }

  bind(bindings: readonly NewKeyBinding[]): Promise<number> {
    return this.#insert(this.#db, bindings);
  }

  async #insert(
    db: Kysely<KeyDirectoryDatabase> | Transaction<KeyDirectoryDatabase>,
    bindings: readonly NewKeyBinding[],
  ): Promise<number> {
    if (bindings.length === 0) return 0;
    const boundAt = this.#clock().toISOString();
    const result = await db
      .insertInto('key_bindings')
      .values(
        bindings.map((b) => ({
          kid: b.kid,
          subject: b.subject,
          alg: b.alg,
          public_key_b64: b.publicKeyB64,
          role: b.role,
          evidence: b.evidence,
          expires_at: b.expiresAt,
          bound_at: boundAt,
          retired_at: null,
          retired_by: null,
          retired_seq: null,
          authorised_at: null,
          seen_at: boundAt,
          key_created_at: b.keyCreatedAt ?? null,
        })),
      )
      // A retired pair stays retired: binding it again changes nothing.
      .onConflict((oc) => oc.columns(['kid', 'subject']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n);
  }

  applyPassport(passport: PassportKeys): Promise<PassportOutcome> {
    const clock = this.#clock();
    const now = clock.toISOString();
    const horizon = new Date(clock.getTime() + this.#maxClockSkewMs).toISOString();
    const createdAt = normalisedInstant(passport.createdAt);
    return this.#db.transaction().execute(async (trx) => {
      // Continuity (P45): ids are self-asserted in a bundle, so once an agent (or human) has live keys here,
      // only a bundle whose passport (or RPR) is signed by one of them speaks for it.
      const nowMs = Date.parse(now);
      const agentKids = await this.#liveKids(trx, passport.agentId, 'passport', nowMs);
      const human = passport.humanId;
      const humanKids = human === undefined ? [] : await this.#liveKids(trx, human, 'principal', nowMs);
      const humanSigned = human !== undefined && continuous(humanKids, passport.principalSignerKid);
      // P584: a fresh agent is first bound only under a human that is new here too or signed its RPR: else anyone
      // with a copy of a known human's RPR (or one naming it, signed by their own key) creates "an agent of H".
      const agentSigned =
        continuous(agentKids, passport.passportSignerKid) &&
        (agentKids.length > 0 || human === undefined || humanSigned);
      // P600: an RPR first bound here for another agent is a copy (a second agent has its own RPR, its own nonce):
      // the bundle then speaks for no one. Claimed before the agent's passport row is locked, in every application.
      const rprAgent =
        agentSigned && humanSigned && passport.rprHash !== undefined
          ? await this.#claimRpr(trx, passport.rprHash, passport, now)
          : undefined;
      const copied = rprAgent !== undefined && rprAgent !== passport.agentId;
      const agentOwns = agentSigned && !copied;
      const humanOwns = humanSigned && !copied;
      const speaksFor = new Set(
        passport.subjects.filter((s) =>
          s === passport.agentId ? agentOwns : s === human ? humanOwns : false,
        ),
      );
      const retiredPairs: { kid: string; subject: string }[] = [];
      // Each retiring statement returns the pairs it retired; they are numbered once this transaction is done.
      const retire = async (query: () => Promise<{ kid: string; subject: string }[]>) => {
        retiredPairs.push(...(await query()));
      };
      // P474: the agent's passport row (locked by #placePassport's upsert) before any binding row, in every
      // application: two newer passports of one agent racing no longer lock the two in opposite orders.
      const order = agentOwns ? await this.#placePassport(trx, passport, createdAt, horizon) : 'foreign';
      // P524: the human's rows are shared by all its agents, whose passport rows are not the same lock: taken here,
      // in kid order, before any statement below locks one in its own order (a retirement first, or seen_at in the
      // table's order), so two agents of one human never each hold a row the other waits for.
      if (human !== undefined && speaksFor.has(human)) await this.#lockHumanRows(trx, human, passport);
      if (passport.retiredKids.length > 0 && speaksFor.size > 0) {
        await retire(() =>
          trx
            .updateTable('key_bindings')
            .set({ retired_at: now, retired_by: passport.evidence })
            .where('kid', 'in', [...passport.retiredKids])
            .where('subject', 'in', [...speaksFor])
            .where('retired_at', 'is', null)
            .returning(['kid', 'subject'])
            .execute(),
        );
      }
      if (order === 'newest') {
        // Keys the newest passport no longer lists stop authorising for the agent (P45).
        const listed = passport.activeKids.length === 0 ? [''] : [...passport.activeKids];
        await retire(() =>
          trx
            .updateTable('key_bindings')
            .set({ retired_at: now, retired_by: passport.evidence })
            .where('subject', '=', passport.agentId)
            .where('role', '=', 'passport')
            .where('kid', 'not in', listed)
            .where('retired_at', 'is', null)
            .returning(['kid', 'subject'])
            .execute(),
        );
      }

      // P602: an RPR's keys bind to the agent only when the RPR speaks for its human: an RPR its human did not sign
      // (the agent's own key naming someone else) binds its keys to no one, not even as the agent's principal's.
      const binding = passport.bindings.filter(
        (b) =>
          speaksFor.has(b.subject) &&
          !((order === 'older' || order === 'future') && b.role === 'passport') &&
          (b.role !== 'principal' || humanOwns),
      );
      const bound = await this.#insert(trx, binding);
      // Proven again by this bundle: not idle, whether or not it was new (P174).
      if (binding.length > 0 && bound < binding.length) {
        await trx
          .updateTable('key_bindings')
          .set({ seen_at: now })
          .where((eb) =>
            eb.or(binding.map((b) => eb.and([eb('kid', '=', b.kid), eb('subject', '=', b.subject)]))),
          )
          .where('retired_at', 'is', null)
          .execute();
      }
      if (human !== undefined && agentOwns && humanOwns)
        await this.#placePrincipal(trx, passport, human, horizon);
      // Last: the counter's holder then waits on no row but its own, so no lock cycle with another application.
      if (retiredPairs.length > 0) await this.#numberRetirements(trx, retiredPairs);
      return {
        order,
        bound,
        retired: retiredPairs.length,
        retiredKids: [...new Set(retiredPairs.map((p) => p.kid))],
        ...(copied ? { rprAgent } : {}),
      };
    });
  }

  /**
   * P600: the agent first bound under `rprHash`, this bundle's agent when none was. Insert-if-new on the hash's primary
   * key: of two applications racing with one RPR, PostgreSQL makes the second wait for the first's commit and then
   * read its row (READ COMMITTED reads anew each statement); SQLite has one writer.
   */
  async #claimRpr(
    trx: Transaction<KeyDirectoryDatabase>,
    rprHash: string,
    passport: PassportKeys,
    now: string,
  ): Promise<string | undefined> {
    await trx
      .insertInto('key_rpr_agents')
      .values({ rpr_hash: rprHash, agent_id: passport.agentId, evidence: passport.evidence, bound_at: now })
      .onConflict((oc) => oc.column('rpr_hash').doNothing())
      .execute();
    const row = await trx
      .selectFrom('key_rpr_agents')
      .select('agent_id')
      .where('rpr_hash', '=', rprHash)
      .executeTakeFirst();
    return row?.agent_id;
  }

  async rprAgent(rprHash: string): Promise<string | undefined> {
    const row = await this.#db
      .selectFrom('key_rpr_agents')
      .select('agent_id')
      .where('rpr_hash', '=', rprHash)
      .executeTakeFirst();
    return row?.agent_id;
  }

  /**
   * P472: gives the pairs this transaction retired the next retirement number. Taken only when something was
   * retired: UPDATE … RETURNING locks the counter row until the commit (SQLite's write transaction holds it
   * anyway), so retiring transactions commit in the order of their numbers and a reader that sees number n has
   * every number below it visible too.
   */
  async #numberRetirements(
    trx: Transaction<KeyDirectoryDatabase>,
    pairs: readonly { kid: string; subject: string }[],
  ): Promise<void> {
    const counter = await trx
      .updateTable('key_retirement_counter')
      .set({ last_seq: sql<number>`last_seq + 1` })
      .where('id', '=', 1)
      .returning('last_seq')
      .executeTakeFirstOrThrow();
    const seq = Number(counter.last_seq);
    // A flat row-value list, in chunks: a passport retires few pairs, but SQLite's expression depth is bounded.
    for (let i = 0; i < pairs.length; i += 500) {
      const chunk = pairs.slice(i, i + 500);
      await trx
        .updateTable('key_bindings')
        .set({ retired_seq: seq })
        .where((eb) =>
          eb(
            eb.refTuple('kid', 'subject'),
            'in',
            chunk.map((p) => eb.tuple(p.kid, p.subject)),
          ),
        )
        .execute();
    }
  }

  /** Locks the existing binding rows of `human` this application may update, in kid order (PostgreSQL; SQLite has one writer). */
  async #lockHumanRows(
    trx: Transaction<KeyDirectoryDatabase>,
    human: string,
    passport: PassportKeys,
  ): Promise<void> {
    if (this.#dialect !== 'postgres') return;
    const kids = new Set(passport.retiredKids);
    for (const b of passport.bindings) if (b.subject === human) kids.add(b.kid);
    if (kids.size === 0) return;
    await trx
      .selectFrom('key_bindings')
      .select('kid')
      .where('subject', '=', human)
      .where('kid', 'in', [...kids])
      .orderBy('kid')
      .forUpdate()
      .execute();
  }

  /** The kids bound to `subject` in `role`, neither retired nor expired at `nowMs`. */
  async #liveKids(
    db: Kysely<KeyDirectoryDatabase> | Transaction<KeyDirectoryDatabase>,
    subject: string,
    role: 'passport' | 'principal',
    nowMs: number,
  ): Promise<string[]> {
    const rows = await db
      .selectFrom('key_bindings')
      .select(['kid', 'expires_at'])
      .where('subject', '=', subject)
      .where('role', '=', role)
      .where('retired_at', 'is', null)
      .execute();
    return rows.filter((r) => r.expires_at === null || notExpired(r.expires_at, nowMs)).map((r) => r.kid);
  }

  async hasLivePassportKeys(agentId: string): Promise<boolean> {
    return (await this.liveKids(agentId, 'passport')).length > 0;
  }

  liveKids(subject: string, role: 'passport' | 'principal'): Promise<string[]> {
    return this.#liveKids(this.#db, subject, role, this.#clock().getTime());
  }

  async principalsOf(agentId: string): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('key_bindings as mine')
      .innerJoin('key_bindings as other', 'other.kid', 'mine.kid')
      .select('other.subject as subject')
      .distinct()
      .where('mine.subject', '=', agentId)
      .where('mine.role', '=', 'principal')
      .where('other.role', '=', 'principal')
      .where('other.subject', '<>', agentId)
      .orderBy('other.subject')
      .execute();
    return rows.map((row) => row.subject);
  }

  /**
   * P560: makes `human` the agent's current principal when this bundle's RPR is newer (by `issued_at`) than the one
   * placed, as #placePassport orders passports: a time beyond `horizon` is never placed, and one placed before a clock
   * moved back no longer holds (a far-future RPR cannot pin a principal). An equal time keeps the one placed first.
   * The agent's passport row is locked first by #placePassport (P474's order), when this bundle's passport is dated.
   */
  async #placePrincipal(
    trx: Transaction<KeyDirectoryDatabase>,
    passport: PassportKeys,
    human: string,
    horizon: string,
  ): Promise<void> {
    const issuedAt = normalisedInstant(passport.principalIssuedAt);
    if (issuedAt === undefined || Date.parse(issuedAt) > Date.parse(horizon)) return;
    const expiresAt = passport.principalExpiresAt ?? null;
    await trx
      .insertInto('key_principals')
      .values({
        agent_id: passport.agentId,
        human_id: human,
        issued_at: issuedAt,
        evidence: passport.evidence,
        expires_at: expiresAt,
      })
      .onConflict((oc) =>
        oc
          .column('agent_id')
          .doUpdateSet({
            human_id: human,
            issued_at: issuedAt,
            evidence: passport.evidence,
            expires_at: expiresAt,
          })
          .where((eb) =>
            eb.or([
              eb('key_principals.issued_at', '<', issuedAt),
              eb('key_principals.issued_at', '>', horizon),
              // P601: a row placed before migration 0027 learns its RPR's expiry when that RPR is verified again.
              eb.and([
                eb('key_principals.issued_at', '=', issuedAt),
                eb('key_principals.human_id', '=', human),
                eb('key_principals.expires_at', 'is', null),
              ]),
            ]),
          ),
      )
      .execute();
  }

  async currentPrincipal(agentId: string): Promise<string | undefined> {
    const row = await this.#db
      .selectFrom('key_principals')
      .select(['human_id', 'expires_at'])
      .where('agent_id', '=', agentId)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    // P601: the newest RPR has expired: no current principal until a newer RPR is placed (an older one never is).
    if (row.expires_at !== null && !notExpired(row.expires_at, this.#clock().getTime())) return undefined;
    return row.human_id;
  }

  /**
   * Raises the agent's newest passport time if this one is later; says where this passport stands. A time
   * beyond `horizon` (now plus the clock skew) is never placed, and one stored before that rule (P173) no longer
   * holds: any dated passport within the horizon replaces it, so a pinned year-2999 passport cannot freeze rotation.
   */
  async #placePassport(
    trx: Transaction<KeyDirectoryDatabase>,
    passport: PassportKeys,
    createdAt: string | undefined,
    horizon: string,
  ): Promise<PassportOutcome['order']> {
    const known = await trx
      .selectFrom('key_passports')
      .select('created_at')
      .where('agent_id', '=', passport.agentId)
      .executeTakeFirst();
    if (createdAt === undefined) return known === undefined ? 'same' : 'older';
    // Text order is time order only for four-digit years: `+010000-…` sorts before `2026-…`, so compare instants.
    if (Date.parse(createdAt) > Date.parse(horizon)) return 'future';
    // Conditional upsert: of racing newer passports the row lock orders them, and each sees the other's time.
    const raised = await trx
      .insertInto('key_passports')
      .values({ agent_id: passport.agentId, created_at: createdAt, evidence: passport.evidence })
      .onConflict((oc) =>
        oc
          .column('agent_id')
          .doUpdateSet({ created_at: createdAt, evidence: passport.evidence })
          .where((eb) =>
            eb.or([
              eb('key_passports.created_at', '<', createdAt),
              eb('key_passports.created_at', '>', horizon),
            ]),
          ),
      )
      .returning('agent_id')
      .executeTakeFirst();
    if (raised !== undefined) return known === undefined ? 'same' : 'newest';
    const current = await trx
      .selectFrom('key_passports')
      .select('created_at')
      .where('agent_id', '=', passport.agentId)
      .executeTakeFirst();
    return current?.created_at === createdAt ? 'same' : 'older';
  }

  async lookup(kid: string, options: { readonly maxKeyAgeDays?: number } = {}): Promise<KeyBindingRow[]> {
    const now = this.#clock().getTime();
    const rows = await this.#db
      .selectFrom('key_bindings')
      .selectAll()
      .where('kid', '=', kid)
      .where('retired_at', 'is', null)
      .execute();
    return rows
      .filter((r) => r.expires_at === null || notExpired(r.expires_at, now))
      .filter((r) => !agedOut(r.key_created_at, options.maxKeyAgeDays, now))
      .map((r) => ({
        kid: r.kid,
        subject: r.subject,
        alg: r.alg,
        publicKeyB64: r.public_key_b64,
        role: r.role === 'principal' ? 'principal' : 'passport',
        evidence: r.evidence,
        expiresAt: r.expires_at,
        boundAt: r.bound_at,
        keyCreatedAt: r.key_created_at,
      }));
  }

  async retiredBindings(kids: readonly string[], subjects: readonly string[]): Promise<RetiredKeyBinding[]> {
    if (kids.length === 0 || subjects.length === 0) return [];
    const rows = await this.#db
      .selectFrom('key_bindings')
      .select(['kid', 'subject', 'role', 'retired_at', 'retired_by'])
      .where('kid', 'in', [...kids])
      .where('subject', 'in', [...subjects])
      .where('retired_at', 'is not', null)
      .orderBy('kid')
      .orderBy('subject')
      .limit(100)
      .execute();
    return rows.map((r) => ({
      kid: r.kid,
      subject: r.subject,
      role: r.role === 'principal' ? 'principal' : 'passport',
      retiredAt: r.retired_at ?? '',
      retiredBy: r.retired_by,
    }));
  }

  async retiredSince(after: RetiredPosition | null, limit: number): Promise<RetiredPosition[]> {
    let query = this.#db
      .selectFrom('key_bindings')
      .select(['retired_seq', 'kid', 'subject'])
      .where('retired_seq', 'is not', null);
    if (after !== null) {
      query = query.where((eb) =>
        eb(eb.refTuple('retired_seq', 'kid', 'subject'), '>', eb.tuple(after.seq, after.kid, after.subject)),
      );
    }
    const rows = await query.orderBy('retired_seq').orderBy('kid').orderBy('subject').limit(limit).execute();
    return rows.map((r) => ({ seq: Number(r.retired_seq), kid: r.kid, subject: r.subject }));
  }

  async numberUnnumberedRetirements(): Promise<number> {
    const unnumbered = (db: Kysely<KeyDirectoryDatabase>) =>
      db
        .selectFrom('key_bindings')
        .select(['kid', 'subject'])
        .where('retired_seq', 'is', null)
        .where('retired_at', 'is not', null)
        // The order of migration 0022's partial index: without it PostgreSQL, expecting one row in ten to match,
        // read the whole table (P522).
        .orderBy('kid')
        .orderBy('subject');
    if ((await unnumbered(this.#db).limit(1).executeTakeFirst()) === undefined) return 0;
    return this.#db.transaction().execute(async (trx) => {
      const pairs = await unnumbered(trx).limit(10_000).execute();
      if (pairs.length === 0) return 0;
      await this.#numberRetirements(trx, pairs);
      return pairs.length;
    });
  }

  async markAuthorised(kid: string, subjects: readonly string[]): Promise<boolean> {
    if (subjects.length === 0) return false;
    const now = this.#clock().toISOString();
    // One statement: on PostgreSQL it waits for, or is waited on by, a prune of the same rows, and a prune
    // re-checks `authorised_at` after the wait, so a binding is either pruned before this (0 rows) or kept.
    const result = await this.#db
      .updateTable('key_bindings')
      .set((eb) => ({ authorised_at: eb.fn.coalesce('authorised_at', eb.val(now)) }))
      .where('kid', '=', kid)
      .where('subject', 'in', [...subjects])
      .where('retired_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async holdSubjects(subjects: readonly string[]): Promise<void> {
    if (subjects.length === 0) return;
    const since = this.#clock().toISOString();
    await this.#db
      .insertInto('key_record_subjects')
      .values([...new Set(subjects)].map((subject) => ({ subject, since })))
      .onConflict((oc) => oc.column('subject').doNothing())
      .execute();
  }

  holdForDispute(
    disputeId: string,
    filer: string,
    subjects: readonly string[],
    options: { readonly limit?: number | undefined; readonly heldSince?: Date | undefined } = {},
  ): Promise<boolean> {
    if (subjects.length === 0) return Promise.resolve(true);
    const { limit, heldSince } = options;
    const since = this.#clock().toISOString();
    return inTransaction(this.#db, async (trx) => {
      // P605: without it, READ COMMITTED lets concurrent filings of one filer each count the others' holds as absent.
      if (this.#dialect === 'postgres')
        await sql`SELECT pg_advisory_xact_lock(hashtext(${`key_dispute_holds:${filer}`})::bigint)`.execute(
          trx,
        );
      if (limit !== undefined) {
        let held = trx
          .selectFrom('key_dispute_holds')
          .select('dispute_id')
          .distinct()
          .where('filer', '=', filer)
          .where('dispute_id', '!=', disputeId);
        if (heldSince !== undefined) held = held.where('since', '>=', heldSince.toISOString());
        if ((await held.limit(limit).execute()).length >= limit) return false;
      }
      await trx
        .insertInto('key_dispute_holds')
        .values([...new Set(subjects)].map((subject) => ({ dispute_id: disputeId, subject, filer, since })))
        .onConflict((oc) => oc.columns(['dispute_id', 'subject']).doNothing())
        .execute();
      return true;
    });
  }

  async releaseDisputeHolds(disputeId: string): Promise<number> {
    const result = await this.#db
      .deleteFrom('key_dispute_holds')
      .where('dispute_id', '=', disputeId)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  pruneUnused(
    provenBefore: Date,
    limit: number,
    options: { readonly disputeHeldSince?: Date | undefined } = {},
  ): Promise<number> {
    const cutoff = provenBefore.toISOString();
    const heldSince = options.disputeHeldSince?.toISOString();
    // A held subject keeps every binding: a stored record names it (P185) or an unsettled dispute holds it (P566).
    // Checked again by the delete, so a hold committed in between counts.
    const unheld = ({
      and,
      not,
      exists,
      selectFrom,
    }: ExpressionBuilder<KeyDirectoryDatabase, 'key_bindings'>) => {
      const held = selectFrom('key_record_subjects')
        .select('subject')
        .unionAll(
          // P606: a dispute left unsettled past the operator's age holds nothing any more.
          selectFrom('key_dispute_holds')
            .select('subject')
            .$if(heldSince !== undefined, (q) => q.where('since', '>=', heldSince as string)),
        )
        .as('held');
      return and([
        not(
          exists(
            selectFrom(held).select('held.subject').whereRef('held.subject', '=', 'key_bindings.subject'),
          ),
        ),
        // P537: nor a principal binding of a key a held subject is bound to as principal too: that row is what names
        // a held agent's human (principalsOf, P375), which a dispute's panel is judged against.
        not(
          exists(
            selectFrom('key_bindings as kin')
              .innerJoin(held, 'held.subject', 'kin.subject')
              .select('kin.kid')
              .whereRef('kin.kid', '=', 'key_bindings.kid')
              .whereRef('kin.role', '=', 'key_bindings.role')
              .where('kin.role', '=', 'principal'),
          ),
        ),
      ]);
    };
    return this.#db.transaction().execute(async (trx) => {
      const idle = await trx
        .selectFrom('key_bindings')
        .select(['kid', 'subject'])
        .where('authorised_at', 'is', null)
        .where('retired_at', 'is', null)
        .where('seen_at', '<', cutoff)
        .where(unheld)
        .orderBy('seen_at')
        .limit(limit)
        .execute();
      if (idle.length === 0) return 0;
      // The conditions again: a row proven, used or retired since the select stays.
      const deleted = await trx
        .deleteFrom('key_bindings')
        // A flat row-value list: an OR of 1,000 pairs nests deeper than SQLite's expression limit (1,000).
        .where((eb) =>
          eb(
            eb.refTuple('kid', 'subject'),
            'in',
            idle.map((r) => eb.tuple(r.kid, r.subject)),
          ),
        )
        .where('authorised_at', 'is', null)
        .where('retired_at', 'is', null)
        .where('seen_at', '<', cutoff)
        .where(unheld)
        .executeTakeFirst();
      // An agent with no binding left, retired or not, is forgotten whole: its passport time goes too, and its
      // current principal (P560).
      const subjects = [...new Set(idle.map((r) => r.subject))];
      for (const table of ['key_passports', 'key_principals'] as const) {
        await trx
          .deleteFrom(table)
          .where('agent_id', 'in', subjects)
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('key_bindings')
                  .select('kid')
                  .whereRef('key_bindings.subject', '=', sql.ref(`${table}.agent_id`)),
              ),
            ),
          )
          .execute();
      }
      return Number(deleted.numDeletedRows);
    });
  }

  async size(): Promise<number> {
    const row = await this.#db
      .selectFrom('key_bindings')
      .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async estimatedSize(): Promise<number | undefined> {
    if (this.#dialect === 'postgres') {
      // The table the connection's search_path resolves, as every other query here does; -1: never analysed.
      const found = await sql<{ n: number | string | null }>`SELECT reltuples AS n FROM pg_class
        WHERE oid = to_regclass('key_bindings')`.execute(this.#db);
      const n = Number(found.rows[0]?.n ?? -1);
      return n >= 0 ? Math.round(n) : undefined;
    }
    const found = await sql<{ n: number | null }>`SELECT max(rowid) AS n FROM key_bindings`.execute(this.#db);
    return Number(found.rows[0]?.n ?? 0);
  }
}
