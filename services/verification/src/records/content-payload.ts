// P514: one stored copy per signed payload of a content-id kind (succession records, memory transfer manifests).
// D14's content id hashes the whole record, signature included, so the same signed payload under another signature
// (re-signed, or stripped to classical_only, PROTOCOL §3) has another id: two copies of one ceremony. The id stays
// D14's (clients compute it to GET a record); this index, keyed by the payload hash, names the one id it is stored under.
import { RecordIdRetiredError, type RecordRepository } from '@proto/store';
import type { JsonObject } from './body.ts';
import { conflict } from './errors.ts';
import { payloadHash } from './ids.ts';
import type { RecordRoute } from './kinds.ts';

/** The index's own record kind per content-id kind: retention bounds it beside the records it names (D17). */
const indexKindOf = (kind: string): string => `${kind}_payload`;

/** What the index keeps under a payload hash: the content id its one copy is stored under. */
interface PayloadEntry {
  readonly id: string;
}

const keyOf = (record: JsonObject): string => {
  const hash = payloadHash(record);
  if (!hash.ok) throw new Error(`payload hash of a validated record failed: ${hash.error.message}`);
  return hash.value;
};

/**
 * Names `id` as the one copy of `record`'s payload; a payload already stored under another id is 409 naming it.
 * Called in the transaction that stores the record, so the record is stored only with its entry.
 */
export async function claimPayload(
  records: Pick<RecordRepository, 'put'>,
  route: RecordRoute,
  id: string,
  record: JsonObject,
  opts: { agentId?: string },
): Promise<void> {
  const key = keyOf(record);
  const refuse = (storedId: string | undefined, why: string) =>
    conflict(`This ${route.noun}'s signed payload is already stored ${why}; one payload is stored once`, {
      reason: 'payload_already_stored',
      kind: route.kind,
      payload_hash: key,
      ...(storedId === undefined ? {} : { id: storedId }),
    });
  let put: Awaited<ReturnType<RecordRepository['put']>>;
  const entry = { id } satisfies PayloadEntry;
  try {
    // P567: the entry keeps the id it names once retention evicts it, so a later copy is refused naming it.
    put = await records.put(indexKindOf(route.kind), key, entry, { ...opts, keep: entry });
  } catch (error) {
    // Its first copy's entry was evicted by retention (D17): the tombstone still says the payload was stored, and
    // (P567) under which id; an entry evicted before migration 0025 that its back-fill could not name names none.
    if (!(error instanceof RecordIdRetiredError)) throw error;
    const keptId = keptEntryId(error.tombstone.kept);
    throw refuse(
      keptId,
      keptId === undefined ? 'under another id, since evicted' : `under id ${keptId}, since evicted`,
    );
  }
  if (put.status !== 'conflict') return;
  const storedId = (put.stored.record as PayloadEntry).id;
  throw refuse(storedId, `under id ${storedId}, signed otherwise`);
}

/** The id an evicted index entry kept (P567), when it kept one. */
function keptEntryId(kept: unknown): string | undefined {
  const id = typeof kept === 'object' && kept !== null ? (kept as Partial<PayloadEntry>).id : undefined;
  return typeof id === 'string' ? id : undefined;
}

/** The content id `record`'s payload is stored under, when one is. */
export async function payloadHolder(
  records: Pick<RecordRepository, 'get'>,
  kind: string,
  record: JsonObject,
): Promise<string | undefined> {
  const entry = (await records.get(indexKindOf(kind), keyOf(record)))?.record as PayloadEntry | undefined;
  return entry?.id;
}

/**
 * P446 for a content-id kind: the owner's hybrid record has replaced its stripped copy (under the copy's id); it is
 * stored under its own D14 id too, and the index names that id from now on. In the upgrade's transaction.
 */
export async function movePayload(
  records: Pick<RecordRepository, 'put' | 'get' | 'replace'>,
  kind: string,
  record: JsonObject,
  to: string,
  opts: { agentId?: string },
): Promise<void> {
  await records.put(kind, to, record, opts);
  const key = keyOf(record);
  const entry = await records.get(indexKindOf(kind), key);
  if (entry !== undefined) await records.replace(indexKindOf(kind), key, entry.content_hash, { id: to });
}
