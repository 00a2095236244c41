// What a dispute's records keep of themselves once retention evicts them (P508, P509; D17). A dispute's filing names
// its parties and its status, which every later resolution of it is judged by (P203, P267, P296), and an appealed
// decision's signed time floors its appeal's outcome (P296). Retention bounds how many records of a kind are stored,
// not what a dispute is: so these few fields stay with the tombstone, and the readers below find them there.
import type { RecordRepository } from '@proto/store';

const DISPUTE = 'dispute_record';

/** Per kind, the fields a record keeps once evicted, under their own names (so readers take either alike). */
const KEPT_FIELDS: Readonly<Record<string, readonly string[]>> = {
  [DISPUTE]: ['initiator_agent_id', 'respondent_agent_id', 'status', 'timestamp'],
  // The decision: an appeal's outcome is dated not before it (P296).
  arbitration_resolution: ['timestamp'],
};

/** The store's put options for `record` of `kind`: its agent (when it names one) and what it keeps once evicted. */
export function keptOnEviction(
  kind: string,
  record: Readonly<Record<string, unknown>>,
): { readonly keep?: Readonly<Record<string, unknown>> } {
  const fields = KEPT_FIELDS[kind];
  if (fields === undefined) return {};
  return { keep: Object.fromEntries(fields.filter((f) => f in record).map((f) => [f, record[f]])) };
}

/** A record of a dispute as the store holds it: live, or the fields it kept once evicted (then `evicted`). */
export interface DisputeRecordSeen {
  readonly id: string;
  readonly record: Readonly<Record<string, unknown>>;
  /** The store's order; undefined for a tombstone written before migration 0023. */
  readonly seq: number | undefined;
  readonly content_hash: string;
  readonly evicted: boolean;
}

/** `kind` `id` live, else what its tombstone kept (P508); undefined when neither holds anything. */
export async function liveOrKept(
  records: RecordRepository,
  kind: string,
  id: string,
): Promise<DisputeRecordSeen | undefined> {
  const stored = await records.get(kind, id);
  if (stored !== undefined) {
    const record = isObject(stored.record) ? stored.record : {};
    return { id, record, seq: stored.seq, content_hash: stored.content_hash, evicted: false };
  }
  const gone = await records.tombstone(kind, id);
  if (gone === undefined || !isObject(gone.kept)) return undefined;
  return { id, record: gone.kept, seq: gone.seq, content_hash: gone.content_hash, evicted: true };
}

/** The dispute `disputeId` filed here: its filing live, or what it kept once evicted (P508). */
export const filedDispute = (records: RecordRepository, disputeId: string) =>
  liveOrKept(records, DISPUTE, disputeId);

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
