// P566: a dispute holds its respondent's key bindings against pruning only while it is unsettled, and one filer holds
// few at once. P537 made a filing hold its respondent (so the respondent's principals stay parties, P375) in the
// key directory's permanent holds (P185), so any agent with a verified bundle could keep any known agent's bindings
// from pruning for good by naming it. Now the hold belongs to the dispute: released once the dispute takes no more
// resolution its parties are judged for, and bounded per filer (RECORDS_DISPUTE_HOLDS_PER_FILER) while open.
import type { Store } from '@proto/store';
import { ARBITRATION } from './arbitration-panel.ts';
import { DISPUTE_KIND, disputeSettled } from './dispute-state.ts';
import { conflict } from './errors.ts';

/** Unsettled disputes one filer may hold parties for at once (RECORDS_DISPUTE_HOLDS_PER_FILER's default). */
export const DEFAULT_DISPUTE_HOLDS_PER_FILER = 100;

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * Before a dispute filing is stored (so no prune falls between them, P185): its respondent is held for the dispute.
 * 409 when its filer already holds `limit` other unsettled disputes; the operator's filings (D22) are not bounded.
 */
export async function holdDisputeRespondent(
  store: Store,
  kind: string,
  record: Readonly<Record<string, unknown>>,
  options: { readonly limit: number; readonly administrative: boolean },
): Promise<void> {
  if (kind !== DISPUTE_KIND) return;
  const disputeId = text(record['dispute_id']);
  const filer = text(record['initiator_agent_id']);
  const respondent = text(record['respondent_agent_id']);
  if (disputeId === undefined || filer === undefined || respondent === undefined) return;
  const limit = options.administrative ? undefined : options.limit;
  if (await store.keys.holdForDispute(disputeId, filer, [respondent], limit)) return;
  throw conflict(
    `Agent ${filer} already has ${options.limit} unsettled disputes filed here, each holding its respondent's keys; one is filed once another is settled`,
    { reason: 'too_many_unsettled_disputes', initiator_agent_id: filer, limit: options.limit },
  );
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
