// Who may resolve a dispute (P203). An arbitration resolution names its arbitrators itself (`arbitrator_ids`), so a
// key bound to any id listed there authorised it: a party to a dispute, or anyone, verified its own bundle, named
// itself arbitrator and resolved the dispute, even one never filed here. PROTOCOL gives no source for a panel (no
// appointment record, one composite signature per resolution), so this judges only what the service holds: the
// dispute must be filed here, and no party to it (its agents, the principals their certificates here name, and since
// P375 the principals whose RPR keys a verified bundle bound to them) may
// sit on the panel or sign the resolution. P241: the operator may say who arbitrates (RECORDS_ARBITRATORS); then a
// panel names appointed arbitrators only. Unset, who appoints an arbitrator stays open (docs/security.md Known limits).
import type { Store } from '@proto/store';
import { type PrincipalLookup, storePrincipalLookup } from './agent-principal.ts';
import { filedDispute } from './dispute-filing.ts';
import { isValidId } from './ids.ts';
import type { KeyBinding } from './write-authorization.ts';

export const ARBITRATION = 'arbitration_resolution';
const PARTY_FIELDS = ['initiator_agent_id', 'respondent_agent_id'] as const;

/** A dispute filing's two parties (agents), as it names them. */
export const disputePartiesNamed = (record: Readonly<Record<string, unknown>>): string[] =>
  PARTY_FIELDS.map((field) => record[field]).filter((id): id is string => typeof id === 'string');

/** The ids that are party to a stored dispute, or undefined when no dispute with that id is stored here. */
export type DisputePartiesLookup = (disputeId: string) => Promise<readonly string[] | undefined>;

/** `store`: the store, or (P444) a write's transaction, which reads what that transaction sees. */
export function storeDisputePartiesLookup(
  store: Pick<Store, 'records' | 'keys'>,
  principalOf: PrincipalLookup,
): DisputePartiesLookup {
  return async (disputeId) => {
    // P508: a filing retention evicted still names its parties (kept with its tombstone).
    const record = (await filedDispute(store.records, disputeId))?.record;
    if (record === undefined) return undefined;
    const agents = disputePartiesNamed(record);
    const principals = await Promise.all(agents.map((agent) => principalOf(agent)));
    // P375: and the principals the key directory knows by their bundles (an agent not commissioned here has no
    // certificate naming its human, yet its verified bundle bound that human's RPR keys to it).
    const bound = await Promise.all(agents.map((agent) => store.keys.principalsOf(agent)));
    return [
      ...new Set([...agents, ...principals.filter((id): id is string => id !== undefined), ...bound.flat()]),
    ];
  };
}

/**
 * RECORDS_PANEL_QUORUM read against the appointment (P297): over one, distinct appointed arbitrators are counted, so
 * it needs RECORDS_ARBITRATORS naming at least that many (else self-named arbitrators would be counted). Thrown at boot.
 */
export function checkPanelQuorum(quorum: number, appointed: ReadonlySet<string> | undefined): number {
  if (quorum <= 1) return 1;
  if (appointed === undefined || appointed.size < quorum) {
    throw new Error(
      `RECORDS_PANEL_QUORUM=${quorum} counts appointed arbitrators: RECORDS_ARBITRATORS must name at least ${quorum} (names ${appointed?.size ?? 0})`,
    );
  }
  return quorum;
}

/**
 * RECORDS_ARBITRATORS read: the appointed ids, or undefined when unset or blank (no appointment is judged). An entry
 * that is no id is a configuration error, thrown at boot rather than silently appointing nobody.
 */
export function parseArbitrators(text: string | undefined): ReadonlySet<string> | undefined {
  const ids = (text ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  if (ids.length === 0) return undefined;
  const bad = ids.find((id) => !isValidId(id));
  if (bad !== undefined) throw new Error(`RECORDS_ARBITRATORS: ${JSON.stringify(bad)} is not a record id`);
  return new Set(ids);
}

export type PanelVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'dispute_unknown' }
  | { readonly ok: false; readonly reason: 'party_on_panel' | 'party_signed'; readonly party: string }
  | { readonly ok: false; readonly reason: 'not_appointed'; readonly arbitrator: string }
  | {
      readonly ok: false;
      readonly reason: 'panel_too_small';
      readonly panelSize: number;
      readonly quorum: number;
    };

/**
 * Whether the keys that signed `record` (a resolution) may resolve the dispute it names; with `appointed` (P241),
 * every arbitrator its panel names must be one of them (the signing key is bound to a panel member by core's rule).
 */
export async function judgePanel(
  record: Readonly<Record<string, unknown>>,
  signers: readonly KeyBinding[],
  partiesOf: DisputePartiesLookup,
  appointed?: ReadonlySet<string>,
  quorum = 1,
): Promise<PanelVerdict> {
  const disputeId = record['dispute_id'];
  const parties = typeof disputeId === 'string' ? await partiesOf(disputeId) : undefined;
  if (parties === undefined) return { ok: false, reason: 'dispute_unknown' };
  const arbitrators = Array.isArray(record['arbitrator_ids']) ? (record['arbitrator_ids'] as unknown[]) : [];
  const unappointed =
    appointed === undefined ? undefined : arbitrators.find((id) => !appointed.has(String(id)));
  if (unappointed !== undefined)
    return { ok: false, reason: 'not_appointed', arbitrator: String(unappointed) };
  // P297: a member listed twice is one member; a panel smaller than the quorum could never resolve.
  const panelSize = new Set(arbitrators.map(String)).size;
  if (panelSize < quorum) return { ok: false, reason: 'panel_too_small', panelSize, quorum };
  const seated = parties.find((party) => arbitrators.includes(party));
  if (seated !== undefined) return { ok: false, reason: 'party_on_panel', party: seated };
  // A key bound to a party speaks for it even when it is also bound to a named arbitrator (a principal's RPR key).
  const signedBy = parties.find((party) => signers.some((binding) => binding.subjects.includes(party)));
  if (signedBy !== undefined) return { ok: false, reason: 'party_signed', party: signedBy };
  return { ok: true };
}

/**
 * P444: P203's party check of a signed resolution once more, inside its write's transaction after the dispute's series
 * lock: the party its panel names, or that the signing key `kid` is bound to, when the parties read now (P375: those
 * the key directory binds to the dispute's agents by verified bundles) include one. The write authorizer read them
 * before the request waited for the lock, and a bundle verified meanwhile, on any replica, may have made a member a
 * party. Undefined when no party is concerned, or no dispute is filed here (the authorizer judged that).
 */
export async function partyOfResolution(
  reader: Pick<Store, 'records' | 'keys'>,
  record: Readonly<Record<string, unknown>>,
  kid: string,
): Promise<string | undefined> {
  const disputeId = record['dispute_id'];
  if (typeof disputeId !== 'string') return undefined;
  const parties = await storeDisputePartiesLookup(reader, storePrincipalLookup(reader))(disputeId);
  if (parties === undefined) return undefined;
  const panel = Array.isArray(record['arbitrator_ids']) ? record['arbitrator_ids'].map(String) : [];
  const seated = parties.find((party) => panel.includes(party));
  if (seated !== undefined) return seated;
  const bound = (await reader.keys.lookup(kid)).map((binding) => binding.subject);
  return parties.find((party) => bound.includes(party));
}
