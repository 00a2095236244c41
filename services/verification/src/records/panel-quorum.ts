// M-of-N arbitration panels (P297): SPEC.md "arbitration by M-of-N panels", with M the operator's RECORDS_PANEL_QUORUM.
// A resolution carries one composite signature (PROTOCOL §10.2), so each member posts the same resolution signed by its
// own key; distinct appointed arbitrators are counted, one key each, never the entries `arbitrator_ids` lists.

import { hashCanonicalV2 } from '@proto/core';
import type { RecordRepository, StoredRecord } from '@proto/store';

/** Who of the panel signed a resolution and how many are needed (answered beside it). */
export interface PanelCount {
  readonly quorum: number;
  /** The counted arbitrators, in the order the resolution names them. */
  readonly signed_by: readonly string[];
}

/** sha256 of what every member signs: the resolution without its `composite_sig` (the flat-record payload rule). */
export function signedPayloadHash(record: unknown): string {
  const { composite_sig: _signature, ...payload } = (record ?? {}) as Record<string, unknown>;
  const hash = hashCanonicalV2('sha256', payload);
  if (!hash.ok) throw new Error(`payload hash of a validated resolution failed: ${hash.error.message}`);
  return hash.value;
}

/**
 * Counts the signer of `record` for the resolution of `disputeId`: the first panel member its key speaks for that is
 * not counted yet. A key already counted, or one speaking only for members already counted, adds nothing.
 */
export async function countPanelSigner(
  records: RecordRepository,
  disputeId: string,
  record: unknown,
  signer: { readonly kid: string; readonly panelMembers: readonly string[] },
): Promise<void> {
  const payloadHash = signedPayloadHash(record);
  for (const arbitratorId of signer.panelMembers) {
    if (await records.addPanelSignature({ disputeId, payloadHash, arbitratorId, kid: signer.kid })) return;
  }
}

/**
 * The panel count of the stored resolution `stored` of the dispute `disputeId` (by default the id it is stored under),
 * or undefined when nobody was counted for it (see `resolves`).
 */
export async function panelCountOf(
  records: RecordRepository,
  stored: StoredRecord,
  quorum: number,
  disputeId: string = stored.id,
): Promise<PanelCount | undefined> {
  const rows = await records.panelSignatures(disputeId, signedPayloadHash(stored.record));
  if (rows.length === 0) return undefined;
  const panel = (stored.record as { arbitrator_ids?: unknown }).arbitrator_ids;
  const order = Array.isArray(panel) ? panel.map(String) : [];
  const signed = rows.map((row) => row.arbitratorId);
  return { quorum, signed_by: [...new Set(order)].filter((id) => signed.includes(id)) };
}

/**
 * Whether a stored resolution resolves its dispute: counted ones once `quorum` members signed; one nobody was counted
 * for (the operator's, `open` writes, or stored while the quorum was 1) as soon as it is stored, as before P297.
 */
export function resolves(count: PanelCount | undefined, quorum: number): boolean {
  return count === undefined || count.signed_by.length >= quorum;
}
