// P446: a record stored with its signature stripped to `classical_only` is upgraded to the same record's hybrid form.
// PROTOCOL §3: `binding` is covered by no signature, so whoever sees a hybrid-signed record can drop its ML-DSA half
// and post it first; under VERIFIER_MODE=hybrid_preferred (the default) the classical half is accepted (P377), and the
// owner's own record would then be "another record" under a stored id (409) for good.
import { hashCanonicalV2, recordSignatureRule } from '@proto/core';
import {
  joinedStore,
  RecordIdRetiredError,
  type RecordRepository,
  type Store,
  type StoredRecord,
} from '@proto/store';
import { ARBITRATION } from './arbitration-panel.ts';
import type { JsonObject } from './body.ts';
import { movePayload, payloadHolder } from './content-payload.ts';
import { keptOnEviction } from './dispute-filing.ts';
import {
  APPEAL_OUTCOME,
  APPEAL_SETTLEMENT,
  KEPT_PAYLOAD_HASH,
  PROPOSAL,
  SETTLEMENT,
} from './dispute-state.ts';
import { testamentVersionId, vitalityReportHash } from './ids.ts';
import type { RecordRoute } from './kinds.ts';
import { signedPayloadHash } from './panel-quorum.ts';
import type { WriteAuthorship } from './write-authorization.ts';

/** Which halves a stored record's signature carries: both (`hybrid`), or the classical one only. */
export type SignatureForm = 'hybrid' | 'classical_only';

/**
 * The trace of an upgrade, kept as a record of its own kind under the upgraded content's hash (so retention bounds
 * it as every kind, D17), and shown beside the record as `signature.upgraded_from`.
 */
export const SIGNATURE_UPGRADE = 'record_signature_upgrade';

export interface SignatureUpgrade {
  readonly kind: string;
  readonly id: string;
  /** The content hash of the record now stored (the trace's own id). */
  readonly content_hash: string;
  readonly replaced_content_hash: string;
  readonly replaced_form: 'classical_only';
  readonly upgraded_at: string;
  readonly kid: string;
  readonly pq_kid: string;
}

/** What GET and POST show of an upgrade beside the record (inside `signature`). */
export interface UpgradeShown {
  readonly form: 'classical_only';
  /** Where the stripped copy was stored: for a content-id kind its own D14 id, which now answers this record (P514). */
  readonly id: string;
  readonly content_hash: string;
  readonly upgraded_at: string;
}

const signatureMemberOf = (kind: string): string =>
  recordSignatureRule(kind)?.signatureMember ?? 'composite_sig';

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The form of the signature `record` carries; undefined when it carries none (an administrative write, P44). */
export function signatureFormOf(kind: string, record: unknown): SignatureForm | undefined {
  if (!isObject(record)) return undefined;
  const signature = record[signatureMemberOf(kind)];
  if (!isObject(signature)) return undefined;
  // The halves decide, not `binding`: the binding is the one member nobody signed.
  return signature['pq'] === null || signature['pq'] === undefined ? 'classical_only' : 'hybrid';
}

const canonicalHash = (value: unknown): string | undefined => {
  const hash = hashCanonicalV2('sha256', value);
  return hash.ok ? hash.value : undefined;
};

/**
 * Whether `stored` is `incoming` stripped of its PQ half: the same signed payload, the same classical half byte for
 * byte, no PQ half stored and one posted. Anything else under the id is another record (D14: 409).
 */
export function isStrippedCopyOf(kind: string, stored: unknown, incoming: unknown): boolean {
  if (!isObject(stored) || !isObject(incoming)) return false;
  const member = signatureMemberOf(kind);
  const { [member]: storedSig, ...storedPayload } = stored;
  const { [member]: incomingSig, ...incomingPayload } = incoming;
  if (!isObject(storedSig) || !isObject(incomingSig)) return false;
  if (signatureFormOf(kind, stored) !== 'classical_only' || signatureFormOf(kind, incoming) !== 'hybrid')
    return false;
  const same = (a: unknown, b: unknown) => {
    const left = canonicalHash(a);
    return left !== undefined && left === canonicalHash(b);
  };
  return same(storedPayload, incomingPayload) && same(storedSig['classical'], incomingSig['classical']);
}

/**
 * P536: what a PQ-stripped copy's tombstone keeps of it, under this name: the hash of its signed payload and classical
 * half, the two parts it shares with the owner's hybrid record (the rest of the signature is the PQ half and the
 * unsigned `binding`, which the squatter chose). The content hash alone cannot name the hybrid record it was cut from.
 */
const SIGNED_HALF = 'signed_classical_half';

/** The hash of `record`'s signed payload and classical half (undefined without a signature). */
function signedHalfHash(kind: string, record: JsonObject): string | undefined {
  const member = signatureMemberOf(kind);
  const { [member]: signature, ...payload } = record;
  return isObject(signature) ? canonicalHash({ payload, classical: signature['classical'] }) : undefined;
}

/**
 * The store's put options for `record` of `kind` beside its agent: what its tombstone keeps once retention evicts it.
 * A dispute's filing and decision keep the fields later writes are judged by (P508, P509); a classical_only record
 * keeps the hash its owner's hybrid record is recognised by (P536), so the upgrade outlives the stripped copy.
 */
export function keptOf(
  kind: string,
  record: JsonObject,
): { readonly keep?: Readonly<Record<string, unknown>> } {
  const { keep: fields } = keptOnEviction(kind, record);
  // P538: a resolution keeps its payload's hash, so its evicted trace is judged by its own panel rows only.
  const keep =
    kind === ARBITRATION || kind === APPEAL_OUTCOME
      ? { ...fields, [KEPT_PAYLOAD_HASH]: signedPayloadHash(record) }
      : fields;
  const half = signatureFormOf(kind, record) === 'classical_only' ? signedHalfHash(kind, record) : undefined;
  if (half === undefined) return keep === undefined ? {} : { keep };
  return { keep: { ...keep, [SIGNED_HALF]: half } };
}

/**
 * Where a record posted on `route` may already be stored: the (kind, id) pairs its handler writes it under. A content
 * id covers the signature too (D14), so a stripped copy holds another id: the payload's index names it (P514).
 */
export async function storedPlacesOf(
  records: Pick<RecordRepository, 'get'>,
  route: RecordRoute,
  record: JsonObject,
): Promise<(readonly [string, string])[]> {
  const agentId = typeof record['agent_id'] === 'string' ? record['agent_id'] : undefined;
  switch (route.id.type) {
    case 'content': {
      const id = await payloadHolder(records, route.kind, record);
      return id === undefined ? [] : [[route.kind, id]];
    }
    case 'agent':
      return agentId === undefined ? [] : [[route.kind, agentId]];
    case 'vitality': {
      const hash = vitalityReportHash(record);
      return hash.ok ? [[route.kind, hash.value]] : [];
    }
    case 'testament': {
      const version = record['testament_version'];
      const id =
        agentId === undefined || typeof version !== 'number'
          ? undefined
          : testamentVersionId(agentId, version);
      return id === undefined ? [] : [[route.kind, id]];
    }
    case 'field': {
      const id = record[route.id.field];
      if (typeof id !== 'string') return [];
      if (route.kind !== ARBITRATION) return [[route.kind, id]];
      // A resolution is stored as the decision, the appeal's outcome, a proposal or a settlement (P296, P372, P378).
      return [
        [ARBITRATION, id],
        [APPEAL_OUTCOME, id],
        [SETTLEMENT, id],
        [APPEAL_SETTLEMENT, id],
        [PROPOSAL, signedPayloadHash(record)],
      ];
    }
  }
}

/**
 * Runs `post` (the kind's handler) after storing `record` in the place of its stripped copy wherever one is stored,
 * when its writer proved both halves (a verified signature with a PQ kid): the owner's record answers as a first
 * write. Each place is replaced by a compare-and-set on the stripped copy's content, so a racing write of anything
 * else wins or loses cleanly, and a trace of the upgrade is stored with it. P506: the upgrades and the handler's write
 * are one transaction, so a record the handler refuses leaves its stripped copy where it was. An operator's or an
 * unchecked write proves no PQ half: nothing is upgraded.
 */
export async function postUpgrading<T>(
  store: Store,
  route: RecordRoute,
  record: JsonObject,
  authorship: WriteAuthorship,
  post: (store: Store) => Promise<T>,
  now: () => Date = () => new Date(),
): Promise<{ readonly outcome: T; readonly upgrades: readonly SignatureUpgrade[] }> {
  const copies: StoredRecord[] = [];
  const evicted: { readonly kind: string; readonly id: string; readonly content_hash: string }[] = [];
  if (authorship.status === 'verified' && authorship.pqKid !== undefined) {
    const half = signedHalfHash(route.kind, record);
    for (const [kind, id] of await storedPlacesOf(store.records, route, record)) {
      const stored = await store.records.get(kind, id);
      if (stored !== undefined) {
        if (isStrippedCopyOf(route.kind, stored.record, record)) copies.push(stored);
        continue;
      }
      // P536: a stripped copy retention evicted is known by what its tombstone kept of it.
      const gone = await store.records.tombstone(kind, id);
      const kept = gone?.kept;
      if (gone !== undefined && half !== undefined && isObject(kept) && kept[SIGNED_HALF] === half)
        evicted.push({ kind, id, content_hash: gone.content_hash });
    }
  }
  // Most writes find no stripped copy: they keep the handler's own transactions, with nothing held around them.
  if (
    (copies.length === 0 && evicted.length === 0) ||
    authorship.status !== 'verified' ||
    authorship.pqKid === undefined
  )
    return { outcome: await post(store), upgrades: [] };
  const { kid, pqKid } = authorship;
  return store.transaction(async (tx) => {
    const upgrades: SignatureUpgrade[] = [];
    const traced = (
      kind: string,
      id: string,
      contentHash: string,
      replacedHash: string,
    ): SignatureUpgrade => ({
      kind,
      id,
      content_hash: contentHash,
      replaced_content_hash: replacedHash,
      replaced_form: 'classical_only',
      upgraded_at: now().toISOString(),
      kid,
      pq_kid: pqKid,
    });
    for (const stored of copies) {
      const { kind, id } = stored;
      const replaced = await tx.records.replace(kind, id, stored.content_hash, record);
      if (replaced === undefined) continue; // changed since it was read: judged again by the handler
      // P514: the owner's record keeps its own D14 id too; the stripped copy's id answers it from now on.
      if (route.id.type === 'content')
        await movePayload(tx.records, kind, record, replaced.content_hash, agentOf(stored));
      const trace = traced(kind, id, replaced.content_hash, stored.content_hash);
      await keepTrace(tx.records, trace, agentOf(stored));
      upgrades.push(trace);
    }
    // P536: the owner's record comes back in the evicted copy's place (a new entry: retention counts it as any write).
    const agent = typeof record['agent_id'] === 'string' ? { agentId: record['agent_id'] } : {};
    for (const gone of evicted) {
      const put = await tx.records.put(gone.kind, gone.id, record, {
        ...agent,
        ...keptOf(gone.kind, record),
        overTombstone: gone.content_hash,
      });
      if (put.status !== 'created') continue; // stored since it was read: judged by the handler
      const trace = traced(gone.kind, gone.id, put.stored.content_hash, gone.content_hash);
      await keepTrace(tx.records, trace, agent);
      upgrades.push(trace);
    }
    return { outcome: await post(joinedStore(store, tx)), upgrades };
  });
}

/**
 * The trace is stored under the upgraded content's hash. That id can only be retired (D17) by an earlier trace of the
 * same content, evicted since: the upgrade itself stands, and the older trace's tombstone keeps its meaning.
 */
async function keepTrace(
  records: RecordRepository,
  trace: SignatureUpgrade,
  opts: { agentId?: string },
): Promise<void> {
  try {
    await records.put(SIGNATURE_UPGRADE, trace.content_hash, trace, opts);
  } catch (error) {
    if (!(error instanceof RecordIdRetiredError)) throw error;
  }
}

const agentOf = (stored: StoredRecord): { agentId?: string } =>
  stored.agent_id === undefined ? {} : { agentId: stored.agent_id };

/**
 * The upgrade that stored this content, as shown beside it; undefined when it was stored as posted. By content hash
 * alone: a resolution's one content may be kept under several kinds (decision, proposal, settlement; P372).
 */
export async function upgradeShownFor(
  store: Store,
  contentHash: string | undefined,
): Promise<UpgradeShown | undefined> {
  if (contentHash === undefined) return undefined;
  const trace = (await store.records.get(SIGNATURE_UPGRADE, contentHash))?.record as
    | Partial<SignatureUpgrade>
    | undefined;
  if (trace === undefined) return undefined;
  return {
    form: 'classical_only',
    id: String(trace.id),
    content_hash: String(trace.replaced_content_hash),
    upgraded_at: String(trace.upgraded_at),
  };
}

/**
 * P446: beside a verified write, which halves the stored record's signature carries (`form`: what was verified), and
 * the stripped copy it replaced when the owner's hybrid record was stored in its place (`upgraded_from`). An operator's
 * or an unchecked write verified no half, so it shows none. P507: every read of a stored record shows it so, an
 * appeal's outcome beside its decision included.
 */
export async function withForm<T extends { readonly status: string }>(
  store: Store,
  kind: string,
  shown: { readonly record: unknown; readonly content_hash?: string | undefined },
  signature: T,
) {
  if (signature.status !== 'verified') return signature;
  const form = signatureFormOf(kind, shown.record);
  const upgraded = await upgradeShownFor(store, shown.content_hash);
  return {
    ...signature,
    ...(form === undefined ? {} : { form }),
    ...(upgraded === undefined ? {} : { upgraded_from: upgraded }),
  };
}
