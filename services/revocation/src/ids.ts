// Identifier checks for agent ids in bodies and paths: the SPEC.md pattern, plus the schema's minimum length.
// SPEC.md Limits (`^[\w:.\-]{1,256}$`, 400 otherwise), D14; schemas/v2 revocation_list entries (agent_id ≥ 6).
import { httpError } from '@proto/service-kit';

export const ID_PATTERN_SOURCE = '^[\\w:.\\-]{1,256}$';
const ID_PATTERN = new RegExp(ID_PATTERN_SOURCE);
/** The list and attestation schemas require agent_id of at least 6 characters (as every V2 schema does). */
export const MIN_AGENT_ID_LENGTH = 6;

/** Throws 400 INVALID_ID unless `value` is an agent id the list and attestation schemas accept. */
export function assertAgentId(value: unknown): asserts value is string {
  if (typeof value !== 'string' || !ID_PATTERN.test(value)) {
    throw httpError('INVALID_ID', `agent_id must match ${ID_PATTERN_SOURCE}`);
  }
  if (value.length < MIN_AGENT_ID_LENGTH) {
    throw httpError('INVALID_ID', `agent_id must be at least ${MIN_AGENT_ID_LENGTH} characters`);
  }
}

/** The form of a key id (deriveKid: 32 lowercase hex), which the list's entries share with agent ids. */
const KEY_ID_FORM = /^[0-9a-f]{32}$/;

/** Whether `value` has the form of a key id (32 lowercase hex), which no agent id registered since P201 has. */
export function isKeyIdForm(value: string): boolean {
  return KEY_ID_FORM.test(value);
}

/**
 * Throws 400 INVALID_ID when `value` has the form of a key id. A list entry revokes the agent of that id and every
 * key of that kid (verifiers look up each signer kid too), so an agent named after another agent's kid would get
 * that key revoked by its own emergency secret, or by any revocation of "itself" (P201).
 */
export function assertNotKeyIdForm(value: string): void {
  if (isKeyIdForm(value)) {
    throw httpError(
      'INVALID_ID',
      'agent_id must not have the form of a key id (32 lowercase hex): the revocation list names keys and agents alike',
    );
  }
}
