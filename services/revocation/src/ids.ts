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
