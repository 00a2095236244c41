// A V2 bundle's `signature.signer` ({type, id}) is a label no signature covers (PROTOCOL §6.3 "Unsigned, unchecked
// metadata"): compared with the bundle's signed parties, a label naming anyone else is a warning (V2 only: D12). P280.
import { describe, prop, propRecord } from './json.ts';

/** The signed names a label may use: the RPR's `human_id` and the passport's `agent_id`. */
export interface SignedParties {
  readonly humanId: unknown;
  readonly agentId: unknown;
}

/**
 * The warning for a `signature.signer` that names someone the bundle's signed artifacts do not, or undefined.
 * A `human` label must name the principal (RPR `human_id`): the principal is the bundle's only human (P246 binds
 * passport, intent and trail to it). Any other type (upstream writes `organization`, naming an organisation no
 * artifact names) must name the principal or the agent. Never a failure: upstream verifies a re-labelled bundle
 * and its own vector `dual_hash_checkpoints_signed_by_agent_keys` carries an organisation label naming neither
 * party, so failing would turn away valid bundles over bytes that prove nothing either way; the warning keeps a
 * reader of `verified: true` from crediting the label.
 */
export function signerLabelWarning(signature: unknown, parties: SignedParties): string | undefined {
  const signer = propRecord(signature, 'signer');
  if (signer === undefined) return undefined;
  const type = prop(signer, 'type');
  const id = prop(signer, 'id');
  const { humanId, agentId } = parties;
  if (typeof humanId !== 'string' || typeof agentId !== 'string') return undefined;
  const names = type === 'human' ? [humanId] : [humanId, agentId];
  if (typeof id === 'string' && names.includes(id)) return undefined;
  return (
    `signature.signer names ${describe(type)} '${describe(id)}', but this bundle's principal (RPR human_id) is ` +
    `'${describe(humanId)}' and its agent '${describe(agentId)}': signature.signer is covered by no signature, ` +
    'so it was ignored and does not say who signed'
  );
}
