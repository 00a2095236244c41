// What each /v2 route does with the store: idempotent puts, lifecycle moves, the vitality chain, testaments.
// Implements D14 (201 / 200 idempotent / 409 / 404), D16 (machine, atomic moves, GENESIS chain), D17 (retention).
import { DEFAULT_PROFILE, instantOf, type ProtocolProfile } from '@proto/core';
import { httpError } from '@proto/service-kit';
import {
  GENESIS,
  type RecordRepository,
  type Store,
  type StoredRecord,
  type StoreTransaction,
  type TransitionResult,
} from '@proto/store';
import { COMMISSIONING } from './agent-principal.ts';
import { ARBITRATION, partyOfResolution } from './arbitration-panel.ts';
import type { JsonObject } from './body.ts';
import { claimPayload } from './content-payload.ts';
import { type DisputeRecordSeen, filedDispute } from './dispute-filing.ts';
import {
  APPEAL_OUTCOME,
  APPEAL_SETTLEMENT,
  appealedDecision,
  DISPUTE_KIND,
  decidingResolution,
  disputeStateOf,
  evictedDecision,
  keptPayloadHash,
  PROPOSAL,
  panelLeftPending,
  type ResolutionTrace,
  refuseOutcomeBeforeAppeal,
  SETTLED_DISPUTE,
  SETTLEMENT,
} from './dispute-state.ts';
import { conflict, invalidId, notFound } from './errors.ts';
import { SUCCESSION } from './human-consent.ts';
import { contentId, isValidId, testamentVersionId, vitalityReportHash } from './ids.ts';
import type { RecordRoute } from './kinds.ts';
import {
  isLifecycleState,
  LIFECYCLE_MACHINE,
  recordedTime,
  reportableStates,
  type TransitionRequest,
} from './lifecycle-machine.ts';
import {
  countPanelSigner,
  type PanelCount,
  type PanelSigner,
  panelCountOf,
  refuseProposalFlood,
  resolves,
  signedPayloadHash,
} from './panel-quorum.ts';
import { keptOf, withForm } from './signature-upgrade.ts';
import { indexManifestCeremony, MANIFEST } from './succession-manifest.ts';
import {
  checkSuccessionWrite,
  refuseTestamentAfterUnconsentedSuccession,
  TESTAMENT,
} from './succession-write.ts';
import type { WriteAuthorship } from './write-authorization.ts';

/** The body of every record answer: `{ id, kind, stored_at, record }` plus a few per-kind facts. */
export interface RecordAnswer {
  readonly id: string;
  readonly kind: string;
  readonly stored_at: string;
  readonly record: unknown;
  /** Vitality: the report's chain hash (what the next report names as prev_report_hash). */
  readonly report_hash?: string;
  /** Commissioning: the agent's current lifecycle state. Dispute: `resolved` once resolved here, else as filed (P295). */
  readonly state?: string;
  /** Dispute: its resolution here, live or evicted (P295). */
  readonly resolution?: ResolutionTrace;
  /**
   * P296. Dispute: where its appeal's outcome is. Resolution: the appeal's outcome stored beside it. POST: `true` when
   * the resolution posted was stored as the appeal's outcome.
   */
  readonly appeal_outcome?: ResolutionTrace | AppealOutcomeAnswer | true;
  /** P297. Resolution: the appointed arbitrators counted for it and the quorum, when a quorum counted it. */
  readonly panel?: PanelCount;
  /** P561: what the write could not check (a succession record naming a manifest not stored here). */
  readonly warnings?: readonly string[];
  /** P565. Resolution: when retention evicted the decision (then `record` is null), as the dispute's trace shows it. */
  readonly evicted_at?: string;
  /** P565, P440. Resolution: the evicted decision was short of its panel quorum and decided nothing. */
  readonly pending?: true;
  /** The stored content's hash (not in the response schema: used to find the write's authorship). */
  readonly content_hash?: string;
}

export interface Outcome<T> {
  /** 201 when stored now, 200 when the same record was already stored (idempotent re-post). */
  readonly statusCode: 200 | 201;
  readonly body: T;
}

const answer = (id: string, stored: StoredRecord, extra: Partial<RecordAnswer> = {}): RecordAnswer => ({
  id,
  kind: stored.kind,
  stored_at: stored.stored_at,
  record: stored.record,
  content_hash: stored.content_hash,
  ...extra,
});

const agentOf = (record: JsonObject): { agentId?: string } =>
  isValidId(record['agent_id']) ? { agentId: record['agent_id'] } : {};

/** The appeal's outcome shown beside the decision it answers (GET of a resolution, P296). */
export interface AppealOutcomeAnswer {
  readonly stored_at: string;
  readonly record: unknown;
  readonly signature: unknown;
  /** P371: the members counted for it, when a quorum counts it. */
  readonly panel?: PanelCount;
}

/** What a POST knows beside the record: how its write was authorised, and the panel quorum (P297). */
export interface PostContext {
  readonly signature?: WriteAuthorship;
  readonly panelQuorum?: number;
  /** Error-code prefix of the refusals raised here (P430); default `proto`. */
  readonly profile?: ProtocolProfile;
}

/** Kinds with a natural id or a content id: stored once, re-posted idempotently, never overwritten. */
export async function postSimpleRecord(
  store: Store,
  route: RecordRoute,
  record: JsonObject,
  context: PostContext = {},
): Promise<Outcome<RecordAnswer>> {
  let id: string;
  if (route.id.type === 'field') {
    id = record[route.id.field] as string; // schema-checked string, pattern-checked by readRecordBody
  } else {
    const hash = contentId(record);
    if (!hash.ok) throw new Error(`content id of a validated record failed: ${hash.error.message}`);
    id = hash.value;
  }
  if (route.kind === ARBITRATION) return postResolution(store, id, record, context);
  const verified = context.signature?.status === 'verified';
  if (route.kind === SUCCESSION) await checkPredecessor(store, record);
  const profile = context.profile ?? DEFAULT_PROFILE;
  let warnings: string[] = [];
  const opts = { ...agentOf(record), ...keptOf(route.kind, record) };
  // A succession record is a content-id kind: its consent's use (P511) and its payload's one copy (P514) are stored
  // in the record's transaction, or neither is; its testament, consent and manifest checks run there (P561, P562).
  const put =
    route.id.type === 'content'
      ? await store.transaction(async (tx) => {
          if (route.kind === SUCCESSION)
            warnings = await checkSuccessionWrite(tx.records, record, { verified, profile, id });
          const put = await tx.records.put(route.kind, id, record, opts);
          if (put.status === 'created') await claimPayload(tx.records, route, id, record, agentOf(record));
          if (put.status === 'created' && route.kind === MANIFEST)
            await indexManifestCeremony(tx.records, id, record);
          return put;
        })
      : await store.records.put(route.kind, id, record, opts);
  if (put.status === 'conflict') {
    throw conflict(
      `A different ${route.noun} is already stored under id ${id}; records are never overwritten`,
      {
        id,
        kind: route.kind,
        stored_at: put.stored.stored_at,
      },
    );
  }
  const quorum = context.panelQuorum ?? 1;
  const state = route.kind === DISPUTE_KIND ? await disputeStateOf(store, put.stored, quorum) : {};
  const warned = warnings.length > 0 ? { warnings } : {};
  return {
    statusCode: put.status === 'created' ? 201 : 200,
    body: answer(id, put.stored, { ...state, ...warned }),
  };
}

/** P297: the signer a resolution's panel counts, when a quorum over one is in force and a key signed it. */
async function countedSigner(
  store: Store,
  context: PostContext,
  record: JsonObject,
  disputeId: string,
): Promise<PanelSigner | undefined> {
  const signature = context.signature;
  if ((context.panelQuorum ?? 1) <= 1 || signature?.status !== 'verified') return undefined;
  const panelMembers = signature.panelMembers ?? [];
  const panel = new Set(Array.isArray(record['arbitrator_ids']) ? record['arbitrator_ids'].map(String) : []);
  // Read before the write's transaction (SQLite has one connection). P376: whom each member shares principal keys
  // with, for every member of the panel (a re-seated key may move to any of them, P443).
  const kin = new Map<string, readonly string[]>();
  for (const member of panel) kin.set(member, await store.keys.principalsOf(member));
  // P443: the members each key already counted for the dispute speaks for now (its live bindings on this panel).
  const seatsOf = new Map<string, readonly string[]>();
  for (const { kid } of await store.records.panelSignaturesOfDispute(disputeId)) {
    if (seatsOf.has(kid)) continue;
    const subjects = (await store.keys.lookup(kid)).map((binding) => binding.subject);
    seatsOf.set(
      kid,
      [...panel].filter((member) => subjects.includes(member)),
    );
  }
  return { kid: signature.kid, panelMembers, kin, seatsOf };
}

/** What a resolution's write did inside its transaction, or that it conflicts with the stored one. */
type ResolutionWrite =
  | { readonly type: 'answer'; readonly statusCode: 200 | 201; readonly stored: StoredRecord }
  | { readonly type: 'conflict'; readonly storedAt: string };

/** How a resolution reached the store: its signer when a quorum counts it, or the operator's token. */
interface ResolutionWriter {
  readonly signer: PanelSigner | undefined;
  /** The key that signed it, when a verified signature authorised the write (P444: judged again under the lock). */
  readonly kid: string | undefined;
  readonly administrative: boolean;
  readonly quorum: number;
  readonly profile: ProtocolProfile;
}

/**
 * One resolution per dispute, under its id (P240); a dispute filed settled takes none (P267). P297: with a quorum, the
 * first signer's copy is stored and counted with it, and each further member's signature of the same payload is
 * counted (200, the stored copy unchanged). P296: a different one of an appealed decision is the appeal's outcome.
 * P372–P373: while the stored one is short of its quorum, a member's different text is a proposal counted on its own,
 * and the first text to reach the quorum (or the operator's resolution) settles the dispute.
 */
async function postResolution(
  store: Store,
  id: string,
  record: JsonObject,
  context: PostContext,
): Promise<Outcome<RecordAnswer>> {
  await checkDisputeOpen(store, id);
  // P509: once retention evicted the decision an appeal answers, its tombstone would refuse the appeal's outcome as
  // "another resolution" of the dispute: a resolution other than that decision is the outcome, as when it is live.
  const evicted = await appealedDecision(store, id);
  const hash = contentId(record);
  if (evicted?.evicted === true && !(hash.ok && hash.value === evicted.content_hash))
    return postAppealOutcome(store, evicted, record, context);
  const writer = await resolutionWriter(store, context, record, id);
  const { quorum } = writer;
  const written = await writeCountedResolution(store, ARBITRATION, id, record, writer, SETTLEMENT);
  if (written.type === 'answer') {
    const panel = await panelCountOf(store.records, written.stored, quorum, id);
    const body = { ...answer(id, written.stored, panel === undefined ? {} : { panel }), kind: ARBITRATION };
    return { statusCode: written.statusCode, body };
  }
  const decision = await appealedDecision(store, id);
  if (decision !== undefined) return postAppealOutcome(store, decision, record, context);
  throw conflict(
    `Dispute ${id} already has a resolution stored (${written.storedAt}): a dispute is resolved once (P240), and records are never overwritten`,
    { id, kind: ARBITRATION, stored_at: written.storedAt },
  );
}

/** Who is writing a resolution or an appeal's outcome, and the quorum it is counted against (P297, P372). */
async function resolutionWriter(
  store: Store,
  context: PostContext,
  record: JsonObject,
  disputeId: string,
): Promise<ResolutionWriter> {
  return {
    signer: await countedSigner(store, context, record, disputeId),
    kid: context.signature?.status === 'verified' ? context.signature.kid : undefined,
    administrative: context.signature?.status === 'administrative',
    quorum: context.panelQuorum ?? 1,
    profile: context.profile ?? DEFAULT_PROFILE,
  };
}

/**
 * The one write of a dispute's decision (`kind` ARBITRATION) or of its appeal's outcome (APPEAL_OUTCOME), stored under
 * the dispute id and counted against the panel quorum (P240, P296, P297); while the stored one is short of its
 * quorum, another text is a proposal settled under `settlementKind` (P372, P378).
 */
async function writeCountedResolution(
  store: Store,
  kind: string,
  id: string,
  record: JsonObject,
  writer: ResolutionWriter,
  settlementKind: string,
): Promise<ResolutionWrite> {
  const { quorum } = writer;
  return store.transaction(async (tx): Promise<ResolutionWrite> => {
    // P372: one write at a time per dispute, so no two texts reach the quorum (PostgreSQL lock; SQLite: one writer).
    await tx.records.lockSeries(kind, id);
    if (writer.kid !== undefined) await refusePartyUnderLock(tx, record, writer.kid);
    // P438: a first text evicted by retention while pending: the dispute is still open to its panel and the operator.
    const evicted = await evictedWhilePending(tx.records, kind, id, settlementKind, quorum);
    if (evicted !== undefined)
      return writeWhilePending(tx.records, id, evicted, record, writer, settlementKind);
    const put = await tx.records.put(kind, id, record, {
      ...agentOf(record),
      ...keptOf(kind, record),
    });
    if (put.status === 'created') {
      // Counted in the same transaction: a stored resolution nobody was counted for resolves at once.
      if (writer.signer !== undefined) await countPanelSigner(tx.records, id, record, writer.signer);
      return { type: 'answer', statusCode: 201, stored: put.stored };
    }
    const panel = await panelCountOf(tx.records, put.stored, quorum);
    const samePayload = signedPayloadHash(put.stored.record) === signedPayloadHash(record);
    if (panel !== undefined && !resolves(panel, quorum)) {
      const first = {
        stored: put.stored,
        storedAt: put.stored.stored_at,
        identical: put.status === 'identical',
      };
      return writeWhilePending(tx.records, id, first, record, writer, settlementKind);
    }
    // Only a resolution counted when stored takes further signatures: one nobody was counted for (the operator's, or
    // stored while the quorum was 1) already resolves, and a count started now would turn it back to pending.
    if (writer.signer !== undefined && panel !== undefined && samePayload) {
      await countPanelSigner(tx.records, id, record, writer.signer);
      return { type: 'answer', statusCode: 200, stored: put.stored };
    }
    if (put.status === 'identical') return { type: 'answer', statusCode: 200, stored: put.stored };
    return { type: 'conflict', storedAt: put.stored.stored_at };
  });
}

/**
 * P444: throws P203's 403 when, read inside the write's transaction after the series lock, a party to the dispute sits
 * on the resolution's panel or its signing key is bound to one (a bundle verified while the request waited for the
 * lock made it a party; the authorizer had read the parties before).
 */
async function refusePartyUnderLock(tx: StoreTransaction, record: JsonObject, kid: string): Promise<void> {
  const party = await partyOfResolution(tx, record, kid);
  if (party === undefined) return;
  throw httpError(
    'FORBIDDEN',
    `${party} is a party to dispute ${String(record['dispute_id'])} (known by the time the resolution was written), so it can neither sit on the panel that resolves it nor sign the resolution`,
    { details: { dispute_id: record['dispute_id'], party } },
  );
}

/** The first text of a dispute (or of its appeal) stored under its id while short of its quorum (P372, P438). */
interface PendingFirst {
  /** The stored first text; undefined once retention evicted it (its tombstone keeps only its content hash). */
  readonly stored: StoredRecord | undefined;
  /** When it was stored (its tombstone's time once evicted). */
  readonly storedAt: string;
  /** The record posted is byte-for-byte the stored first text. */
  readonly identical: boolean;
}

/**
 * P438: the first text under the dispute id when retention evicted it while it was pending: its tombstone is there
 * and the record is not, and either a settlement is stored or the panel counted texts of the dispute and none reached
 * the quorum (P431's reading). Undefined otherwise: live, never stored, or evicted once it had resolved (then every
 * other text is refused by the tombstone, as before).
 */
async function evictedWhilePending(
  records: RecordRepository,
  kind: string,
  id: string,
  settlementKind: string,
  quorum: number,
): Promise<PendingFirst | undefined> {
  if ((await records.get(kind, id)) !== undefined) return undefined;
  const gone = await records.tombstone(kind, id);
  if (gone === undefined) return undefined;
  const first = { stored: undefined, storedAt: gone.stored_at, identical: false };
  if ((await records.get(settlementKind, id)) !== undefined) return first;
  return (await panelLeftPending(records, id, quorum, keptPayloadHash(gone.kept))) ? first : undefined;
}

/**
 * P372–P373: a resolution posted while the one stored under the dispute id is short of its quorum. The same record is
 * idempotent (200); another member's copy of the same payload is counted for it (P297). The operator's resolution
 * settles the dispute (D22, P373). A member's different text is a proposal (P372), stored once under its payload hash
 * and counted on its own; the first proposal to reach the quorum settles the dispute. Once settled, only the settling
 * text takes further signatures; anything else is 409.
 */
async function writeWhilePending(
  records: RecordRepository,
  id: string,
  first: PendingFirst,
  record: JsonObject,
  writer: ResolutionWriter,
  settlementKind: string,
): Promise<ResolutionWrite> {
  const { signer } = writer;
  const settled = await records.get(settlementKind, id);
  if (settled !== undefined) {
    const settles = signedPayloadHash(settled.record) === signedPayloadHash(record);
    if (settles && signer !== undefined) await countPanelSigner(records, id, record, signer);
    const again =
      writer.administrative &&
      (await records.put(settlementKind, id, record, agentOf(record))).status === 'identical';
    if ((settles && signer !== undefined) || again)
      return { type: 'answer', statusCode: 200, stored: settled };
    if (first.identical && first.stored !== undefined)
      return { type: 'answer', statusCode: 200, stored: first.stored };
    return { type: 'conflict', storedAt: settled.stored_at };
  }
  if (writer.administrative) {
    const by = await records.put(settlementKind, id, record, agentOf(record));
    return { type: 'answer', statusCode: 201, stored: by.stored };
  }
  if (signer === undefined) {
    if (first.identical && first.stored !== undefined)
      return { type: 'answer', statusCode: 200, stored: first.stored };
    return { type: 'conflict', storedAt: first.storedAt };
  }
  const payloadHash = signedPayloadHash(record);
  // P438: once the first text is evicted its payload is unknown here: a copy of it is a proposal, counted on the
  // same panel rows (they are kept by payload hash, not evicted), so the signatures already counted still count.
  if (first.stored !== undefined && signedPayloadHash(first.stored.record) === payloadHash) {
    await countPanelSigner(records, id, record, signer);
    return { type: 'answer', statusCode: 200, stored: first.stored };
  }
  const stored = first.stored === undefined ? [] : [signedPayloadHash(first.stored.record)];
  // P510: a proposal is stored under its payload's hash, so a copy of one retention evicted is that text, signed by
  // another member: it takes the evicted one's place, counted on the panel rows retention kept. Not a new text.
  const live = await records.get(PROPOSAL, payloadHash);
  const evicted = live === undefined ? await records.tombstone(PROPOSAL, payloadHash) : undefined;
  // P430: a member backs a few texts per dispute at most; a new one beyond them is refused before anything is stored.
  if (live === undefined && evicted === undefined)
    await refuseProposalFlood(records, id, stored, signer, writer.profile, PROPOSAL);
  const proposal = await records.put(PROPOSAL, payloadHash, record, {
    ...agentOf(record),
    ...(evicted === undefined ? {} : { overTombstone: evicted.content_hash }),
  });
  await countPanelSigner(records, id, record, signer);
  const count = await panelCountOf(records, proposal.stored, writer.quorum, id);
  if (resolves(count, writer.quorum))
    await records.put(settlementKind, id, proposal.stored.record, agentOf(record));
  return { type: 'answer', statusCode: proposal.status === 'created' ? 201 : 200, stored: proposal.stored };
}

/**
 * P296: a different resolution of a dispute filed `appealed` after its decision was stored here is the appeal's
 * outcome: one per dispute (a different one 409, the same 200), dated not before the decision nor the appeal. P371: an
 * appeal's outcome is an arbitration resolution too, so the panel quorum counts it as it counts the decision (P297):
 * the first member's copy is stored and counted, each further member's signature of the same payload is counted.
 */
async function postAppealOutcome(
  store: Store,
  decision: DisputeRecordSeen,
  record: JsonObject,
  context: PostContext,
): Promise<Outcome<RecordAnswer>> {
  const disputeId = decision.id;
  refuseOutcomeBeforeAppeal(record, decision, await filedDispute(store.records, disputeId));
  const writer = await resolutionWriter(store, context, record, disputeId);
  const { quorum } = writer;
  // P378: an outcome short of its quorum takes other members' texts as proposals, as a decision does (P372).
  const written = await writeCountedResolution(
    store,
    APPEAL_OUTCOME,
    disputeId,
    record,
    writer,
    APPEAL_SETTLEMENT,
  );
  if (written.type === 'conflict') {
    throw conflict(
      `Dispute ${disputeId}'s appeal already has its outcome stored (${written.storedAt}): an appeal is decided once (P296)`,
      { dispute_id: disputeId, kind: ARBITRATION, stored_at: written.storedAt, appeal_outcome: true },
    );
  }
  const panel = await panelCountOf(store.records, written.stored, quorum, disputeId);
  const body = {
    ...answer(disputeId, written.stored, panel === undefined ? {} : { panel }),
    kind: ARBITRATION,
    appeal_outcome: true as const,
  };
  return { statusCode: written.statusCode, body };
}

async function checkDisputeOpen(store: Store, disputeId: string): Promise<void> {
  // P508: a filing retention evicted keeps its status.
  const dispute = (await filedDispute(store.records, disputeId))?.record;
  if (dispute === undefined) return; // not filed here: P203 and D22 judge it
  const status = dispute['status'];
  if (typeof status !== 'string' || !SETTLED_DISPUTE.includes(status)) return;
  // A resolution stored before the dispute was filed (the operator's, D22): the store answers (same 200, else 409).
  if ((await store.records.get(ARBITRATION, disputeId)) !== undefined) return;
  throw conflict(
    `Dispute ${disputeId} was filed ${status}: its resolution was made before it was filed, so it takes none here (P267)`,
    { dispute_id: disputeId, dispute_status: status, open_statuses: ['open', 'in_negotiation', 'appealed'] },
  );
}

const SUCCEEDABLE = ['declining', 'decommissioned'];

/**
 * Issue 15 item 4: an agent this service knows is succeeded only once it is declining or decommissioned.
 * A predecessor with no lifecycle state here (commissioned elsewhere) cannot be judged and is let through.
 */
async function checkPredecessor(store: Store, record: JsonObject): Promise<void> {
  const predecessor = record['predecessor_agent_id'];
  if (typeof predecessor !== 'string') return;
  const status = await store.lifecycle.get(predecessor);
  if (status === undefined || SUCCEEDABLE.includes(status.state)) return;
  throw conflict(
    `Agent ${predecessor} is ${status.state}: a succession record needs its predecessor declining or decommissioned`,
    { predecessor_agent_id: predecessor, current_state: status.state, required_states: SUCCEEDABLE },
  );
}

export async function getSimpleRecord(
  store: Store,
  route: RecordRoute,
  id: string,
  panelQuorum = 1,
): Promise<RecordAnswer> {
  if (route.kind === ARBITRATION) {
    // P372–P373: a first resolution short of its quorum answers the text that settled the dispute, when one did.
    const found = await decidingOf(store, id, panelQuorum, SETTLEMENT);
    if (found === undefined) {
      // P565: a decision retention evicted answers its trace, its appeal's outcome beside it, as the dispute reads it.
      const gone = await evictedDecision(store.records, id, panelQuorum);
      if (gone === undefined) throw notFound(`No ${route.noun} with id ${id}`);
      return { ...gone, ...(await appealOutcomeBeside(store, id, panelQuorum)) };
    }
    const { stored: deciding, panel } = found;
    return answer(id, deciding, {
      kind: ARBITRATION,
      ...(panel === undefined ? {} : { panel }),
      ...(await appealOutcomeBeside(store, id, panelQuorum)),
    });
  }
  const stored = await store.records.get(route.kind, id);
  if (stored === undefined) throw notFound(`No ${route.noun} with id ${id}`);
  if (route.kind === DISPUTE_KIND)
    return answer(id, stored, await disputeStateOf(store, stored, panelQuorum));
  // P514: a stripped copy's id answers the owner's record that replaced it (P446), under that record's own D14 id.
  if (route.id.type === 'content') return answer(stored.content_hash, stored);
  return answer(id, stored);
}

/**
 * The resolution that decides dispute `id` (or its appeal, with APPEAL_SETTLEMENT), as `decidingResolution` reads it
 * from the first text stored under the id; P439: once retention evicted that first text, its settlement, when one is
 * stored (a settlement is only ever written while the first is pending). Undefined when neither is stored.
 */
async function decidingOf(
  store: Store,
  id: string,
  quorum: number,
  settlementKind: string,
): Promise<{ readonly stored: StoredRecord; readonly panel?: PanelCount } | undefined> {
  const firstKind = settlementKind === SETTLEMENT ? ARBITRATION : APPEAL_OUTCOME;
  const first = await store.records.get(firstKind, id);
  if (first !== undefined) return decidingResolution(store, first, quorum, settlementKind);
  const settled = await store.records.get(settlementKind, id);
  if (settled === undefined) return undefined;
  const panel = await panelCountOf(store.records, settled, quorum);
  return panel === undefined ? { stored: settled } : { stored: settled, panel };
}

/**
 * P296: the appeal's outcome of the dispute `id`, with how its write was authorised, when one is stored; P371: with the
 * members counted for it, when a quorum counts it.
 */
async function appealOutcomeBeside(store: Store, id: string, quorum: number): Promise<Partial<RecordAnswer>> {
  // P378: an outcome short of its quorum answers the text that decided the appeal, when one did (P439: also once
  // retention evicted the first outcome).
  const found = await decidingOf(store, id, quorum, APPEAL_SETTLEMENT);
  if (found === undefined) return {};
  const outcome = found.stored;
  const authorship = (await store.records.getAuthorship(ARBITRATION, outcome.content_hash)) ?? {
    status: 'unchecked',
  };
  const signature = await withForm(store, ARBITRATION, outcome, authorship);
  const panel = await panelCountOf(store.records, outcome, quorum);
  return {
    appeal_outcome: {
      stored_at: outcome.stored_at,
      record: outcome.record,
      signature,
      ...(panel === undefined ? {} : { panel }),
    },
  };
}

const DECOMMISSIONING = 'decommissioning_record';
const VITALITY = 'vitality_report';

/**
 * D16: the certificate and the agent's `commissioned` state are written in one transaction. Re-posting
 * the same certificate is idempotent; another certificate for a known agent is 409.
 */
export async function postCommission(store: Store, record: JsonObject): Promise<Outcome<RecordAnswer>> {
  const agentId = record['agent_id'] as string;
  return store.transaction(async (tx) => {
    const put = await tx.records.put(COMMISSIONING, agentId, record, {
      agentId,
      ...keptOf(COMMISSIONING, record),
    });
    if (put.status === 'conflict') {
      throw conflict(`Agent ${agentId} is already commissioned with a different certificate`, {
        agent_id: agentId,
        stored_at: put.stored.stored_at,
      });
    }
    if (put.status === 'identical') {
      const status = await tx.lifecycle.get(agentId);
      return { statusCode: 200, body: answer(agentId, put.stored, stateOf(status?.state)) };
    }
    if ((await tx.lifecycle.commission(agentId)) === 'exists') {
      // The agent is live but its certificate is gone (retention, D17): a new certificate cannot be
      // told apart from a replacement, so it is refused and the state stays as it is.
      const status = await tx.lifecycle.get(agentId);
      throw conflict(
        `Agent ${agentId} is already commissioned (state ${status?.state ?? 'unknown'}); its certificate is no longer stored`,
        { agent_id: agentId, ...(status === undefined ? {} : { current_state: status.state }) },
      );
    }
    return { statusCode: 201, body: answer(agentId, put.stored, { state: 'commissioned' }) };
  });
}

export async function getCommission(store: Store, agentId: string): Promise<RecordAnswer> {
  const stored = await store.records.get(COMMISSIONING, agentId);
  if (stored === undefined) throw notFound(`No commissioning certificate for agent ${agentId}`);
  const status = await store.lifecycle.get(agentId);
  return answer(agentId, stored, stateOf(status?.state));
}

const stateOf = (state: string | undefined): Partial<RecordAnswer> => (state === undefined ? {} : { state });

/**
 * Throws the answer for a refused move (D16): 404 unknown agent, 409 with the allowed moves; 409 too for a move dated
 * before the agent's latest move (P207), with that move's time: the body is well formed, the history refuses it.
 */
function refuseMove(
  agentId: string,
  to: string,
  result: Extract<TransitionResult, { ok: false }>,
  expectedFrom?: string,
  at?: string,
): never {
  if (result.reason === 'unknown_agent') throw notFound(`Unknown agent ${agentId}: commission it first`);
  if (result.reason === 'before_latest') {
    throw conflict(
      `Agent ${agentId}'s latest move (or its commissioning here) is dated ${result.latestAt}: a move dated ${at ?? '?'} would come before it, and a lifecycle history never runs backwards`,
      {
        agent_id: agentId,
        current_state: result.current,
        requested_state: to,
        latest_move_at: result.latestAt,
        timestamp: at ?? null,
      },
    );
  }
  const details = {
    agent_id: agentId,
    current_state: result.current ?? null,
    requested_state: to,
    allowed_moves: result.allowedMoves,
  };
  const allowed = result.allowedMoves.length > 0 ? result.allowedMoves.join(', ') : 'none';
  if (result.reason === 'from_mismatch') {
    throw conflict(
      `Agent ${agentId} is ${result.current ?? 'in another state'}, not ${expectedFrom ?? '?'}; allowed moves: ${allowed}`,
      { ...details, from_state: expectedFrom ?? null },
    );
  }
  throw conflict(
    `Move ${result.current ?? '?'} → ${to} is outside the lifecycle state machine; allowed moves: ${allowed}`,
    details,
  );
}

/**
 * D16: a decommissioning record is itself the move to `decommissioned`, stored with it atomically. P238: the history
 * records the move at the record's signed `timestamp` (read as a transition's is), so P207's floor judges it: dated
 * before the agent's latest move, it is 409 and nothing is stored.
 */
export async function postDecommission(store: Store, record: JsonObject): Promise<Outcome<RecordAnswer>> {
  const agentId = record['agent_id'] as string;
  // Schema-checked date-time (and not ahead of the clock, P207); undefined only for a form no reading places.
  const at = recordedTime(String(record['timestamp']), 'decommissioned');
  return store.transaction(async (tx) => {
    const put = await tx.records.put(DECOMMISSIONING, agentId, record, {
      agentId,
      ...keptOf(DECOMMISSIONING, record),
    });
    if (put.status === 'conflict') {
      throw conflict(`Agent ${agentId} already has a different decommissioning record`, {
        agent_id: agentId,
        stored_at: put.stored.stored_at,
      });
    }
    if (put.status === 'identical') {
      return { statusCode: 200, body: answer(agentId, put.stored, { state: 'decommissioned' }) };
    }
    const reason = `decommissioning record (${String(record['termination_mode'])})`;
    const moved = await tx.lifecycle.transition(agentId, 'decommissioned', {
      allowed: LIFECYCLE_MACHINE,
      reason,
      ...(at === undefined ? {} : { at }),
    });
    if (!moved.ok) refuseMove(agentId, 'decommissioned', moved, undefined, at); // throws: the put is rolled back
    return { statusCode: 201, body: answer(agentId, put.stored, { state: 'decommissioned' }) };
  });
}

export async function getDecommission(store: Store, agentId: string): Promise<RecordAnswer> {
  const stored = await store.records.get(DECOMMISSIONING, agentId);
  if (stored === undefined) throw notFound(`No decommissioning record for agent ${agentId}`);
  return answer(agentId, stored, { state: 'decommissioned' });
}

/** D16: POST /v2/lifecycle/transition, one locked read-then-write in the store. */
export async function postTransition(
  store: Store,
  request: TransitionRequest,
): Promise<{ agent_id: string; state: string; previous_state: string; reason?: string; timestamp?: string }> {
  const result = await store.lifecycle.transition(request.agent_id, request.to_state, {
    allowed: LIFECYCLE_MACHINE,
    ...(request.from_state === undefined ? {} : { expectedFrom: request.from_state }),
    ...(request.reason === undefined ? {} : { reason: request.reason }),
    ...(request.timestamp === undefined ? {} : { at: request.timestamp }),
  });
  if (!result.ok) {
    refuseMove(request.agent_id, request.to_state, result, request.from_state, request.timestamp);
  }
  return {
    agent_id: request.agent_id,
    state: result.to,
    previous_state: result.from,
    ...(request.reason === undefined ? {} : { reason: request.reason }),
    ...(request.timestamp === undefined ? {} : { timestamp: request.timestamp }),
  };
}

/**
 * D16: a vitality report extends its agent's chain: `prev_report_hash` must be the hash of the latest
 * stored report (`GENESIS` first). The report is stored under its own hash, in the same transaction as
 * the chain's compare-and-set, so a refused report leaves nothing behind.
 */
export async function postVitality(store: Store, record: JsonObject): Promise<Outcome<RecordAnswer>> {
  const agentId = record['agent_id'] as string;
  const hash = vitalityReportHash(record);
  if (!hash.ok) throw new Error(`hash of a validated report failed: ${hash.error.message}`);
  const reportHash = hash.value;
  return store.transaction(async (tx) => {
    const put = await tx.records.put(VITALITY, reportHash, record, { agentId, ...keptOf(VITALITY, record) });
    if (put.status === 'conflict') {
      throw conflict(
        `A vitality report with hash ${reportHash} is already stored with a different composite_sig`,
        { agent_id: agentId, report_hash: reportHash },
      );
    }
    if (put.status === 'identical') {
      return { statusCode: 200, body: answer(agentId, put.stored, { report_hash: reportHash }) };
    }
    const appended = await tx.lifecycle.appendVitality(
      agentId,
      reportHash,
      String(record['prev_report_hash']),
    );
    if (!appended.ok) {
      if (appended.reason === 'unknown_agent')
        throw notFound(`Unknown agent ${agentId}: commission it first`);
      throw conflict(
        `prev_report_hash does not extend agent ${agentId}'s vitality chain: expected ${appended.expected}`,
        {
          agent_id: agentId,
          expected_prev_report_hash: appended.expected,
          prev_report_hash: record['prev_report_hash'],
        },
      );
    }
    // The chain now holds the predecessor as the agent's latest report (under the agent's lock): judged against it.
    await refuseReportOffMachine(tx, agentId, record); // P379, P447: read under the lock every move takes
    await refuseReportBeforeFloor(tx, agentId, record); // throws: the put and the append are rolled back
    return { statusCode: 201, body: answer(agentId, put.stored, { report_hash: reportHash }) };
  });
}

/**
 * P379, P447: a report states the state its agent is in here (`reportableStates`): `decommissioned` is final (D16), so
 * a decommissioned agent's report states nothing else (P379); a live agent's report states its current state, or
 * `decommissioned` as its final report where the machine allows that move. The report's `state` is stored, not
 * applied, and GET answers the latest report: before, a report of an `active` agent was answered for an agent the
 * lifecycle never activated. Judged under the agent's lock after the chain append, so a report racing a move is judged
 * by the state it commits against. Whoever writes (the operator's token checks no signature, not the history).
 */
async function refuseReportOffMachine(
  tx: StoreTransaction,
  agentId: string,
  record: JsonObject,
): Promise<void> {
  const status = await tx.lifecycle.get(agentId);
  const current = status?.state;
  if (!isLifecycleState(current)) return; // the chain append found the agent: its state is the machine's
  const reported = record['state'];
  const allowed = reportableStates(current);
  if (isLifecycleState(reported) && allowed.includes(reported)) return;
  const why =
    current === 'decommissioned'
      ? 'which is final: a vitality report of it states decommissioned'
      : `so a vitality report of it states ${allowed.join(' or ')} (a report is not a move: POST /v2/lifecycle/transition first)`;
  throw conflict(`Agent ${agentId} is ${current}, ${why}, not ${String(reported)}`, {
    agent_id: agentId,
    current_state: current,
    reported_state: reported ?? null,
    allowed_states: allowed,
  });
}

/**
 * P239: a vitality report is not dated before the report it follows (the agent's latest), nor, as the first of the
 * chain, before its agent's commissioning certificate: both are signed statements stored here, so the floor is what
 * was signed. Same reading of both times (a leap second at its earliest, P178). A predecessor no longer stored
 * (retention, D17) leaves the certificate's time as the floor; with neither stored, nothing is judged.
 */
async function refuseReportBeforeFloor(
  tx: StoreTransaction,
  agentId: string,
  record: JsonObject,
): Promise<void> {
  const at = String(record['timestamp']);
  const prev = String(record['prev_report_hash']);
  const predecessor = prev === GENESIS ? undefined : await tx.records.get(VITALITY, prev);
  const floorRecord = predecessor ?? (await tx.records.get(COMMISSIONING, agentId));
  const floorAt = (floorRecord?.record as { timestamp?: unknown } | undefined)?.timestamp;
  if (typeof floorAt !== 'string') return;
  if (!(instantOf(at, 'earliest') < instantOf(floorAt, 'earliest'))) return;
  const what = predecessor === undefined ? 'commissioning certificate' : 'latest vitality report';
  throw conflict(
    `Agent ${agentId}'s ${what} is dated ${floorAt}: a report dated ${at} would come before it, and a vitality chain never runs backwards`,
    {
      agent_id: agentId,
      ...(predecessor === undefined ? { commissioned_at: floorAt } : { latest_report_at: floorAt }),
      timestamp: at,
    },
  );
}

export async function getLatestVitality(store: Store, agentId: string): Promise<RecordAnswer> {
  const stored = await store.records.latestForAgent(VITALITY, agentId);
  if (stored === undefined) throw notFound(`No vitality report for agent ${agentId}`);
  return answer(agentId, stored, { report_hash: stored.id });
}

/**
 * Testaments are versioned (`testament_version`): every version is kept under `<agent_id>:v<n>`, GET by
 * agent id answers the latest. Re-posting a stored version is idempotent, other content under a stored
 * version is 409, and a version not above the latest stored one is 409 (stale).
 */
export async function postTestament(store: Store, record: JsonObject): Promise<Outcome<RecordAnswer>> {
  const agentId = record['agent_id'] as string;
  const version = record['testament_version'] as number;
  const id = testamentVersionId(agentId, version);
  if (id === undefined) throw invalidId('agent_id (with its testament version)', `${agentId}:v${version}`);
  return store.transaction(async (tx: StoreTransaction) => {
    // One writer per agent's testament series at a time (issue 15): racing versions are ordered as if
    // sequential, so a lower version can never be stored after a higher one.
    await tx.records.lockSeries(TESTAMENT, agentId);
    await refuseTestamentAfterUnconsentedSuccession(tx.records, record); // P562
    const existing = await tx.records.get(TESTAMENT, id);
    if (existing === undefined) {
      const latest = await tx.records.latestForAgent(TESTAMENT, agentId);
      const latestVersion = testamentVersionOf(latest);
      if (latestVersion !== undefined && latestVersion >= version) {
        throw conflict(
          `Testament version ${version} of agent ${agentId} is stale: version ${latestVersion} is already stored`,
          { agent_id: agentId, testament_version: version, latest_version: latestVersion },
        );
      }
    }
    // P571: known by its agent's id, which look-alike ids are compared by (not `<agent>:v<n>`).
    const put = await tx.records.put(TESTAMENT, id, record, {
      agentId,
      knownAs: agentId,
      ...keptOf(TESTAMENT, record),
    });
    if (put.status === 'conflict') {
      throw conflict(
        `Testament version ${version} of agent ${agentId} is already stored with other content`,
        {
          agent_id: agentId,
          testament_version: version,
        },
      );
    }
    return { statusCode: put.status === 'created' ? 201 : 200, body: answer(agentId, put.stored) };
  });
}

export async function getTestament(store: Store, agentId: string, version?: number): Promise<RecordAnswer> {
  let stored: StoredRecord | undefined;
  if (version === undefined) {
    stored = await store.records.latestForAgent(TESTAMENT, agentId);
  } else {
    const id = testamentVersionId(agentId, version);
    stored = id === undefined ? undefined : await store.records.get(TESTAMENT, id);
  }
  if (stored === undefined) {
    throw notFound(
      `No digital testament for agent ${agentId}${version === undefined ? '' : ` at version ${version}`}`,
    );
  }
  return answer(agentId, stored);
}

function testamentVersionOf(stored: StoredRecord | undefined): number | undefined {
  const record = stored?.record as { testament_version?: unknown } | undefined;
  return typeof record?.testament_version === 'number' ? record.testament_version : undefined;
}
