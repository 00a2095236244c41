// What became of a dispute filed here (P295) and where an appeal's outcome goes (P296). The filing is signed and never
// rewritten (D14), so its state is derived, beside it, from the resolutions stored under its id (P240).
import { instantOf } from '@proto/core';
import type { RecordRepository, Store, StoredRecord } from '@proto/store';
import { ARBITRATION } from './arbitration-panel.ts';
import { type DisputeRecordSeen, filedDispute, liveOrKept } from './dispute-filing.ts';
import { conflict } from './errors.ts';
import { type PanelCount, panelCountOf, resolves } from './panel-quorum.ts';

export const DISPUTE_KIND = 'dispute_record';
/**
 * P296: the outcome of the appeal of a decision stored here, one per dispute, stored under the dispute's id as its own
 * kind (so retention, tombstones and idempotent re-posts hold for it as for every record; SPEC names no record).
 */
export const APPEAL_OUTCOME = 'arbitration_appeal_outcome';
/**
 * P372–P373: under the dispute's id, the resolution that settled a dispute whose first stored resolution was short of
 * its panel quorum: a member's different text that reached the quorum first, or the operator's resolution (D22).
 */
export const SETTLEMENT = 'arbitration_settlement';
/** P378: the same as SETTLEMENT for an appeal's outcome short of its quorum (under the dispute's id). */
export const APPEAL_SETTLEMENT = 'arbitration_appeal_settlement';
/** P372: a member's different text of a dispute pending its quorum, stored once under its signed payload's hash. */
export const PROPOSAL = 'arbitration_proposal';

/** Where a resolution of the dispute is: live (when stored) or evicted by retention (when evicted, D17). */
export interface ResolutionTrace {
  readonly id: string;
  readonly stored_at: string;
  /** Present when retention removed it (D17): the dispute stays resolved. */
  readonly evicted_at?: string;
  /** P297: who of its panel was counted, when a quorum counts it. */
  readonly panel?: PanelCount;
  /**
   * P440: present (true) when retention evicted it while its panel was short of the quorum and nothing settled it
   * since: it decided nothing (an evicted trace carries no panel, so without this it read as decided).
   */
  readonly pending?: true;
}

export interface DisputeState {
  /** `resolved` once a resolution of it is stored (or was, before retention); else the status it was filed with. */
  readonly state: string;
  readonly resolution?: ResolutionTrace;
  readonly appeal_outcome?: ResolutionTrace;
}

async function traceOf(
  store: Store,
  kind: string,
  id: string,
  quorum = 1,
): Promise<ResolutionTrace | undefined> {
  const stored = await store.records.get(kind, id);
  if (stored !== undefined) {
    const panel = await panelCountOf(store.records, stored, quorum);
    return { id, stored_at: stored.stored_at, ...(panel === undefined ? {} : { panel }) };
  }
  const gone = await store.records.tombstone(kind, id);
  return gone === undefined ? undefined : { id, stored_at: gone.stored_at, evicted_at: gone.evicted_at };
}

/** P538: what a resolution's tombstone keeps of its signed payload, under this name (signature-upgrade.ts `keptOf`). */
export const KEPT_PAYLOAD_HASH = 'signed_payload_hash';

export const keptPayloadHash = (kept: unknown): string | undefined => {
  const value =
    typeof kept === 'object' && kept !== null
      ? (kept as Record<string, unknown>)[KEPT_PAYLOAD_HASH]
      : undefined;
  return typeof value === 'string' ? value : undefined;
};

/**
 * P431: whether the panel counted texts of `disputeId` and none of them reached the quorum: then its first resolution,
 * once evicted by retention, was pending (P295's "an evicted resolution still resolves" holds only for one that did).
 * No panel row at all: nobody was counted for it (the operator's, or a quorum of 1), so it resolved when stored.
 */
export async function panelLeftPending(
  records: RecordRepository,
  disputeId: string,
  quorum: number,
  payloadHash?: string,
): Promise<boolean> {
  // P538: when the evicted text kept its payload's hash, only its own rows judge it: an appealed operator's decision
  // has none, and the appeal's rows pending beside it are not the decision's.
  const rows = (await records.panelSignaturesOfDispute(disputeId)).filter(
    (row) => payloadHash === undefined || row.payloadHash === payloadHash,
  );
  if (rows.length === 0) return false;
  const members = new Map<string, Set<string>>();
  for (const row of rows) {
    const counted = members.get(row.payloadHash) ?? new Set<string>();
    counted.add(row.arbitratorId);
    members.set(row.payloadHash, counted);
  }
  return [...members.values()].every((counted) => counted.size < quorum);
}

/**
 * The state of the dispute `filed` (its stored record), derived from the resolutions under its id; a resolution its
 * panel has not yet signed to the quorum is shown, the state left as filed (P297).
 */
export async function disputeStateOf(
  store: Store,
  filed: Pick<StoredRecord, 'id' | 'record'>,
  quorum = 1,
): Promise<DisputeState> {
  return (await stateAndAppealOf(store, filed, quorum)).state;
}

/** The dispute's state, and whether its appeal's outcome (when one is stored or was) decides the appeal. */
async function stateAndAppealOf(
  store: Store,
  filed: Pick<StoredRecord, 'id' | 'record'>,
  quorum: number,
): Promise<{ readonly state: DisputeState; readonly appealDecided: boolean }> {
  const status = (filed.record as { status?: unknown } | null)?.status;
  const filedState = typeof status === 'string' ? status : 'open';
  const first = await traceOf(store, ARBITRATION, filed.id, quorum);
  if (first === undefined) return { state: { state: filedState }, appealDecided: false };
  // P372–P373: a first resolution short of its quorum may have been settled by another text, or by the operator.
  // P431: one evicted by retention carries no panel; a settlement is only ever written for a pending one, so it decides.
  const { trace: resolution, decided } = await decidingTrace(store, first, SETTLEMENT, quorum);
  if (!decided) return { state: { state: filedState, resolution }, appealDecided: false };
  const firstAppeal = await traceOf(store, APPEAL_OUTCOME, filed.id, quorum);
  // P378: an appeal's outcome short of its quorum may have been settled by another text, or by the operator.
  // P440: and one evicted while pending reads as pending, as P431 reads a decision (the appeal's rows are the only
  // panel rows of the dispute: an appealed decision was stored before the filing, so by the operator, uncounted).
  const appeal =
    firstAppeal === undefined
      ? undefined
      : await decidingTrace(store, firstAppeal, APPEAL_SETTLEMENT, quorum);
  const state = {
    state: 'resolved',
    resolution,
    ...(appeal === undefined ? {} : { appeal_outcome: appeal.trace }),
  };
  return { state, appealDecided: appeal?.decided === true };
}

/** P267: a dispute filed here as `resolved` or `arbitrated` has had its resolution; PROTOCOL's resolve ends a dispute. */
export const SETTLED_DISPUTE: readonly string[] = ['resolved', 'arbitrated'];

/**
 * P566: whether dispute `disputeId` takes no more resolution that its parties are judged for: filed settled (P267), or
 * its decision decided (P297, P372) and, for a dispute filed `appealed` after a decision stored here (P296), its
 * appeal's outcome decided too (P371, P378). Read live or from what retention kept (P508). A dispute not filed here
 * (or whose filing kept nothing) is not settled: nothing is known of it.
 */
export async function disputeSettled(store: Store, disputeId: string, quorum: number): Promise<boolean> {
  const filed = await filedDispute(store.records, disputeId);
  if (filed === undefined) return false;
  const status = filed.record['status'];
  if (typeof status === 'string' && SETTLED_DISPUTE.includes(status)) return true;
  const { state, appealDecided } = await stateAndAppealOf(store, filed, quorum);
  if (state.state !== 'resolved') return false;
  if (status !== 'appealed' || (await appealedDecision(store, disputeId)) === undefined) return true;
  return appealDecided;
}

/**
 * The trace of what decides a dispute (or its appeal) whose first text is `first`: itself when it resolves (live and
 * counted to the quorum, or nobody was counted for it), else its settlement when one is stored or evicted (one is only
 * ever written while the first is pending), else the first itself: pending, shown with its count when live, marked
 * `pending` when evicted and the panel left every text short of the quorum (P431, P440).
 */
async function decidingTrace(
  store: Store,
  first: ResolutionTrace,
  settlementKind: string,
  quorum: number,
): Promise<{ readonly trace: ResolutionTrace; readonly decided: boolean }> {
  if (first.evicted_at === undefined && resolves(first.panel, quorum)) return { trace: first, decided: true };
  const settled = await traceOf(store, settlementKind, first.id, quorum);
  if (settled !== undefined) return { trace: settled, decided: true };
  if (first.evicted_at === undefined) return { trace: first, decided: false };
  const firstKind = settlementKind === SETTLEMENT ? ARBITRATION : APPEAL_OUTCOME;
  const kept = (await store.records.tombstone(firstKind, first.id))?.kept;
  const payloadHash = keptPayloadHash(kept);
  if (await panelLeftPending(store.records, first.id, quorum, payloadHash))
    return { trace: { ...first, pending: true }, decided: false };
  return { trace: first, decided: true };
}

/**
 * The resolution that decides the dispute whose first stored resolution is `first`: itself once its panel reached the
 * quorum (or nobody was counted for it), else its settlement (P372–P373) when there is one, else itself, pending.
 */
export async function decidingResolution(
  store: Store,
  first: StoredRecord,
  quorum: number,
  settlementKind: string = SETTLEMENT,
): Promise<{ readonly stored: StoredRecord; readonly panel?: PanelCount }> {
  const panel = await panelCountOf(store.records, first, quorum);
  const settled = resolves(panel, quorum) ? undefined : await store.records.get(settlementKind, first.id);
  if (settled === undefined) return panel === undefined ? { stored: first } : { stored: first, panel };
  const settledPanel = await panelCountOf(store.records, settled, quorum);
  return settledPanel === undefined ? { stored: settled } : { stored: settled, panel: settledPanel };
}

/** P565: what GET of a dispute's arbitration answers once retention evicted its decision and nothing settled it. */
export interface EvictedDecision {
  readonly id: string;
  readonly kind: typeof ARBITRATION;
  /** When the decision was stored, as its tombstone keeps it. */
  readonly stored_at: string;
  /** Its document is gone (D17): only its trace is left. */
  readonly record: null;
  /** Its content hash: how its write was authorised is kept under it, and answered beside it. */
  readonly content_hash: string;
  readonly evicted_at: string;
  /** P440: its panel left it short of the quorum, so it decided nothing. */
  readonly pending?: true;
}

/**
 * P565: the decision of dispute `id` as its tombstone keeps it, read as GET /v2/dispute/record/<id> reads it (P440,
 * P538: pending when its own panel rows left it short of the quorum). Undefined when no decision was ever evicted.
 */
export async function evictedDecision(
  records: RecordRepository,
  id: string,
  quorum: number,
): Promise<EvictedDecision | undefined> {
  const gone = await records.tombstone(ARBITRATION, id);
  if (gone === undefined) return undefined;
  const pending = await panelLeftPending(records, id, quorum, keptPayloadHash(gone.kept));
  return {
    id,
    kind: ARBITRATION,
    stored_at: gone.stored_at,
    record: null,
    content_hash: gone.content_hash,
    evicted_at: gone.evicted_at,
    ...(pending ? { pending: true as const } : {}),
  };
}

/**
 * P296: the decision under appeal, when the dispute was filed here `appealed` after its resolution was stored (the
 * store's order, `seq`): that resolution is what was appealed, so a different one is the appeal's outcome. A dispute
 * filed `appealed` before any resolution takes its one resolution as the outcome (P267), and no second. P509: the
 * decision and the filing are read live or as their tombstones kept them (P508), so retention evicting either leaves
 * the appeal as it was; a tombstone older than migration 0023 keeps no order, and then no decision is found.
 */
export async function appealedDecision(
  store: Store,
  disputeId: string,
): Promise<DisputeRecordSeen | undefined> {
  const filed = await filedDispute(store.records, disputeId);
  if (filed?.record['status'] !== 'appealed') return undefined;
  const decision = await liveOrKept(store.records, ARBITRATION, disputeId);
  if (decision?.seq === undefined || filed.seq === undefined || decision.seq > filed.seq) return undefined;
  return decision;
}

const signedAt = (stored: { readonly record: unknown }): string | undefined => {
  const at = (stored.record as { timestamp?: unknown } | null)?.timestamp;
  return typeof at === 'string' ? at : undefined;
};

/**
 * P296: an appeal's outcome is not dated before the decision it answers, nor before the appeal (the dispute's filing):
 * both are signed times stored here, read at their earliest (a leap second, P178), the same instant not before.
 */
export function refuseOutcomeBeforeAppeal(
  outcome: Readonly<Record<string, unknown>>,
  decision: DisputeRecordSeen,
  appeal: DisputeRecordSeen | undefined,
): void {
  const at = String(outcome['timestamp']);
  for (const [what, stored] of [
    ['decision appealed', decision],
    ['appeal (the dispute filed appealed)', appeal],
  ] as const) {
    const floor = stored === undefined ? undefined : signedAt(stored);
    if (floor === undefined || !(instantOf(at, 'earliest') < instantOf(floor, 'earliest'))) continue;
    throw conflict(
      `The ${what} of dispute ${decision.id} is dated ${floor}: an appeal's outcome dated ${at} would come before it`,
      { dispute_id: decision.id, floor_at: floor, timestamp: at },
    );
  }
}
