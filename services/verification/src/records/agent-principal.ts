// Who may sign a record about an agent (P199). A record naming an agent and a human was authorised by a key bound to
// either id, so any key bound to any human (a stranger's own RPR key, from its own verified bundle) could sign a
// decommissioning of someone else's agent by naming itself as `human_id`. A key acts for the agent when it is bound
// to the agent (its passport keys, and the RPR keys of a verified bundle of that agent), or when it is bound to the
// human the agent's commissioning certificate here names. Commissioning itself is how an agent gets a principal
// here, so it keeps the old rule (see docs/security.md Known limits).
import type { Store } from '@proto/store';
import type { KeyBinding } from './write-authorization.ts';

/** The kind whose record establishes an agent's principal (its `human_id`) on this service. */
export const COMMISSIONING = 'commissioning_certificate';

/** The human an agent's stored commissioning certificate names, or undefined when none is stored. */
export type PrincipalLookup = (agentId: string) => Promise<string | undefined>;

export function storePrincipalLookup(store: Pick<Store, 'records'>): PrincipalLookup {
  return async (agentId) => {
    const stored = await store.records.get(COMMISSIONING, agentId);
    const record = stored?.record;
    if (typeof record !== 'object' || record === null) return undefined;
    const human = (record as Record<string, unknown>)['human_id'];
    return typeof human === 'string' ? human : undefined;
  };
}

/**
 * The agent a record is about when its authority must come from that agent: the `agent_id` of every kind that names
 * one beside other subjects, except commissioning. Undefined when the usual any-subject rule applies.
 */
export function agentActedFor(
  kind: string,
  subjectFields: readonly string[],
  record: Readonly<Record<string, unknown>>,
): string | undefined {
  if (kind === COMMISSIONING || !subjectFields.includes('agent_id') || subjectFields.length < 2)
    return undefined;
  const agentId = record['agent_id'];
  return typeof agentId === 'string' ? agentId : undefined;
}

/**
 * Whether `binding` may act for `agentId` in `record`: bound to the agent, or bound to the record's `human_id`
 * when that human is the agent's principal by its stored commissioning certificate (`principal`).
 */
export function actsForAgent(
  binding: KeyBinding | undefined,
  agentId: string,
  record: Readonly<Record<string, unknown>>,
  principal: string | undefined,
): boolean {
  if (binding === undefined) return false;
  if (binding.subjects.includes(agentId)) return true;
  const human = record['human_id'];
  return principal !== undefined && human === principal && binding.subjects.includes(principal);
}
