// M-of-N arbitration panels (P297): SPEC.md "arbitration by M-of-N panels", with M the operator's RECORDS_PANEL_QUORUM.
// A resolution carries one composite signature (PROTOCOL §10.2), so each member posts the same resolution signed by its
// own key; distinct appointed arbitrators are counted, one key each, never the entries `arbitrator_ids` lists.

import { hashCanonicalV2, type ProtocolProfile } from '@proto/core';
import { protocolError } from '@proto/service-kit';
import type { PanelSignature, RecordRepository, StoredRecord } from '@proto/store';

/**
 * P430: how many texts of one dispute (or of its appeal) one member may back besides the stored one before it may
 * propose no new text; it may still sign texts already stored. Bounds what one member's flood stores per dispute.
 */
export const MAX_PROPOSALS_PER_MEMBER = 3;

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

/** Who signed a resolution, for its count: its key, the panel members it speaks for, and their kin (P376). */
export interface PanelSigner {
  readonly kid: string;
  /** The panel members the key speaks for, in panel order, once each. */
  readonly panelMembers: readonly string[];
  /** P376: per panel member, the ids it shares principal keys with by verified bundles (KeyDirectory.principalsOf). */
  readonly kin?: ReadonlyMap<string, readonly string[]>;
  /**
   * P443: per key already counted for the dispute, the panel members it speaks for now (its live bindings), so the
   * count may re-seat it. A key missing here keeps the seat it has.
   */
  readonly seatsOf?: ReadonlyMap<string, readonly string[]>;
}

/** One step of a re-seating: `kid` takes `member`'s seat. */
interface Seat {
  readonly kid: string;
  readonly member: string;
}

/**
 * Counts the signer of `record` for the resolution of `disputeId`: distinct panel members, one key each, a member
 * never while another member it shares principal keys with is counted (P376). P443: a maximum matching of keys to
 * members, not the first free seat in arrival order: when every member the key speaks for is taken, a key holding one
 * of those seats moves to another member it speaks for (an augmenting path), so two members who signed with two keys
 * count two whichever signed first. A key already counted, or one that no re-seating can seat, adds nothing.
 */
export async function countPanelSigner(
  records: RecordRepository,
  disputeId: string,
  record: unknown,
  signer: PanelSigner,
): Promise<void> {
  const payloadHash = signedPayloadHash(record);
  const rows = await records.panelSignatures(disputeId, payloadHash);
  if (rows.some((row) => row.kid === signer.kid)) return;
  const holder = new Map(rows.map((row) => [row.arbitratorId, row.kid]));
  // P376: a member who shares principal keys with one already counted (a human and its own agent) is not another.
  const seatable = (member: string) =>
    !holder.has(member) && ![...holder.keys()].some((id) => (signer.kin?.get(member) ?? []).includes(id));
  const direct = signer.panelMembers.find(seatable);
  const path =
    direct === undefined
      ? reseating(signer.kid, signer.panelMembers, holder, seatable, signer.seatsOf, new Set())
      : [{ kid: signer.kid, member: direct }];
  if (path === undefined) return;
  // The far end first: each key moves to a seat just freed (or free), so no two rows ever hold one member.
  for (const seat of path.slice(1).reverse()) {
    await records.movePanelSignature({ disputeId, payloadHash, arbitratorId: seat.member, kid: seat.kid });
  }
  const [taken] = path;
  if (taken !== undefined)
    await records.addPanelSignature({ disputeId, payloadHash, arbitratorId: taken.member, kid: signer.kid });
}

/**
 * An augmenting path from `kid` (speaking for `members`): seats whose holders move on, ending on a free member that no
 * counted member is kin to. Depth-first over the members in panel order, each member visited once.
 */
function reseating(
  kid: string,
  members: readonly string[],
  holder: ReadonlyMap<string, string>,
  seatable: (member: string) => boolean,
  seatsOf: ReadonlyMap<string, readonly string[]> | undefined,
  visited: Set<string>,
): Seat[] | undefined {
  for (const member of members) {
    if (visited.has(member)) continue;
    visited.add(member);
    if (seatable(member)) return [{ kid, member }];
    const held = holder.get(member);
    if (held === undefined) continue; // kin of a counted member: no key may take it
    const onward = reseating(held, seatsOf?.get(held) ?? [], holder, seatable, seatsOf, visited);
    if (onward !== undefined) return [{ kid, member }, ...onward];
  }
  return undefined;
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

/** The classical kid that signed a stored text (its `composite_sig`), when it has one. */
function signingKidOf(record: unknown): string | undefined {
  const signature = (record as { composite_sig?: { classical?: { kid?: unknown } } } | null)?.composite_sig;
  const kid = signature?.classical?.kid;
  return typeof kid === 'string' ? kid : undefined;
}

/**
 * P430: refuses (409 PROTO-E401, nothing stored) a new proposal of a member that already proposed
 * MAX_PROPOSALS_PER_MEMBER texts of the dispute besides the stored ones (`stored`: their payload hashes). A member is
 * its key or any panel member that key speaks for, so a second key of the same member does not reset the count.
 * P441: a text counts for the member that proposed it (whose key signed the stored proposal), not for those who only
 * co-signed it; a proposal retention evicted no longer says who proposed it, so it counts for each member backing it.
 */
export async function refuseProposalFlood(
  records: RecordRepository,
  disputeId: string,
  stored: readonly string[],
  signer: PanelSigner,
  profile: ProtocolProfile,
  proposalKind: string,
): Promise<void> {
  const rows = await records.panelSignaturesOfDispute(disputeId);
  const mine = (row: PanelSignature) =>
    row.kid === signer.kid || signer.panelMembers.includes(row.arbitratorId);
  const backed = new Set<string>();
  for (const hash of new Set(rows.filter(mine).map((row) => row.payloadHash))) {
    if (stored.includes(hash)) continue;
    const proposerKid = signingKidOf((await records.get(proposalKind, hash))?.record);
    const proposer = rows.find((row) => row.payloadHash === hash && row.kid === proposerKid);
    if (proposer === undefined || mine(proposer)) backed.add(hash);
  }
  if (backed.size < MAX_PROPOSALS_PER_MEMBER) return;
  const member = rows.find((row) => row.kid === signer.kid)?.arbitratorId ?? signer.panelMembers[0] ?? null;
  throw protocolError(
    'POLICY_VIOLATION',
    profile,
    `Arbitrator ${member ?? signer.kid} already proposed ${backed.size} texts for dispute ${disputeId} besides the stored one (at most ${MAX_PROPOSALS_PER_MEMBER} per member while it is pending); sign one of the texts already proposed, or wait for the operator (P430, P441)`,
    {
      statusCode: 409,
      retryable: false,
      details: {
        dispute_id: disputeId,
        arbitrator_id: member,
        kid: signer.kid,
        proposals: backed.size,
        max_proposals_per_member: MAX_PROPOSALS_PER_MEMBER,
      },
    },
  );
}
