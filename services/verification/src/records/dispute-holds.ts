// P566: a dispute holds its respondent's key bindings against pruning only while it is unsettled, and one filer holds
// few at once. P537 made a filing hold its respondent (so the respondent's principals stay parties, P375) in the
// key directory's permanent holds (P185), so any agent with a verified bundle could keep any known agent's bindings
// from pruning for good by naming it. Now the hold belongs to the dispute: released once the dispute takes no more
// resolution its parties are judged for, and bounded per filer (RECORDS_DISPUTE_HOLDS_PER_FILER) while open.
// P605–P607: the bound holds under concurrency (one filer's holds are counted one transaction at a time), a hold
// placed by a refused filing goes with it (placed in the filing's own transaction), and a dispute left unsettled holds
// for RECORDS_DISPUTE_HOLD_MAX_AGE_SECONDS at most (then its respondent is pruned like any other; its record stays).
import { joinedStore, type Store } from '@proto/store';
import { ARBITRATION } from './arbitration-panel.ts';
import { DISPUTE_KIND, disputeSettled } from './dispute-state.ts';
import { conflict } from './errors.ts';

/** Unsettled disputes one filer may hold parties for at once (RECORDS_DISPUTE_HOLDS_PER_FILER's default). */
export const DEFAULT_DISPUTE_HOLDS_PER_FILER = 100;
/** How long an unsettled dispute holds its respondent (RECORDS_DISPUTE_HOLD_MAX_AGE_SECONDS's default): 180 days. */
export const DEFAULT_DISPUTE_HOLD_MAX_AGE_SECONDS = 180 * 86_400;

export interface DisputeHoldOptions {
  /** RECORDS_DISPUTE_HOLDS_PER_FILER. */
  readonly limit: number;
  /** RECORDS_DISPUTE_HOLD_MAX_AGE_SECONDS in ms; 0: a hold never ages out. */
  readonly maxAgeMs: number;
}

/** The oldest hold still standing now, or undefined when holds never age out. */
export function disputeHeldSince(maxAgeMs: number, now = Date.now()): Date | undefined {
  return maxAgeMs > 0 ? new Date(now - maxAgeMs) : undefined;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * `write` (the filing's store write) in one transaction with the hold of its respondent, placed first, so no prune
 * falls between them (P185) and a refused write leaves no hold (P607). 409 when its filer already holds `limit` other
 * unsettled disputes placed within the age, unless a filing is stored under its id (P609); the operator's filings (D22)
 * are not bounded. Other kinds: `write` alone.
 */
export function writeHoldingRespondent<T>(
  store: Store,
  kind: string,
  record: Readonly<Record<string, unknown>>,
  options: DisputeHoldOptions & { readonly administrative: boolean },
  write: (store: Store) => Promise<T>,
): Promise<T> {
  const disputeId = text(record['dispute_id']);
  const filer = text(record['initiator_agent_id']);
  const respondent = text(record['respondent_agent_id']);
  if (kind !== DISPUTE_KIND || disputeId === undefined || filer === undefined || respondent === undefined)
    return write(store);
  return store.transaction(async (tx) => {
    const limit = options.administrative ? undefined : options.limit;
    const heldSince = disputeHeldSince(options.maxAgeMs);
    const held = await tx.keys.holdForDispute(disputeId, filer, [respondent], { limit, heldSince });
    // P609: a filing already stored under the id needs no new hold (its own was placed, released or aged out): the
    // write answers it (200 the same, 409 another), whatever its filer's places.
    if (!held && (await tx.records.get(DISPUTE_KIND, disputeId)) === undefined)
      throw conflict(
        `Agent ${filer} already has ${options.limit} unsettled disputes filed here, each holding its respondent's keys; one is filed once another is settled`,
        { reason: 'too_many_unsettled_disputes', initiator_agent_id: filer, limit: options.limit },
      );
    return write(joinedStore(store, tx));
  });
}

/**
 * After a write of a dispute's filing or resolution (stored or refused): once the dispute is settled its holds go, so
 * its respondent's idle bindings are pruned like any other's (P174). A re-posted filing of a settled dispute placed
 * its hold again before this: it goes again here.
 */
export async function releaseSettledDispute(
  store: Store,
  kind: string,
  record: Readonly<Record<string, unknown>>,
  quorum: number,
): Promise<void> {
  if (kind !== DISPUTE_KIND && kind !== ARBITRATION) return;
  const disputeId = text(record['dispute_id']);
  if (disputeId === undefined) return;
  if (await disputeSettled(store, disputeId, quorum)) await store.keys.releaseDisputeHolds(disputeId);
}
