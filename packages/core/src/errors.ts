// The error-code registry: 38 codes with name, message, HTTP status and retryable flag.
// PROTOCOL §7 (identifiers and TypeScript's retryable flags), DECISIONS D13 (prefix from the profile).
import type { ProtocolProfile } from './profile.ts';

export interface ErrorDefinition {
  /** Three digits after the prefix, e.g. `001`. */
  readonly number: string;
  readonly name: string;
  readonly message: string;
  /** HTTP status a service answers when this error ends a request (verdicts on /verify stay 200). */
  readonly httpStatus: number;
  readonly retryable: boolean;
  readonly category: ErrorCategory;
}

export type ErrorCategory =
  | 'schema'
  | 'signature'
  | 'hash_chain'
  | 'identity'
  | 'policy'
  | 'session'
  | 'a2a'
  | 'rate_limit'
  | 'internal';

const def = (
  number: string,
  name: string,
  message: string,
  httpStatus: number,
  retryable: boolean,
  category: ErrorCategory,
) => ({ number, name, message, httpStatus, retryable, category }) as const;

/**
 * PROTOCOL §7. Retryable flags follow the TypeScript SDK (D13): E501 and E603 are retryable there,
 * not in the other SDKs. SPEC.md counts 36 codes; upstream has 38 and so do we (D13).
 */
export const ERROR_DEFINITIONS = [
  def('001', 'BUNDLE_SCHEMA_INVALID', 'Bundle does not conform to schema', 400, false, 'schema'),
  def('002', 'ARTIFACT_SCHEMA_INVALID', 'Artifact does not conform to schema', 400, false, 'schema'),
  def('003', 'VERSION_UNSUPPORTED', 'Version not supported', 400, false, 'schema'),
  def('004', 'MANIFEST_MISSING', 'Bundle manifest missing', 400, false, 'schema'),
  def('100', 'CLASSICAL_SIG_INVALID', 'Ed25519 signature verification failed', 422, false, 'signature'),
  def('101', 'PQ_SIG_INVALID', 'Post-quantum signature verification failed', 422, false, 'signature'),
  def('102', 'COMPOSITE_BINDING_INVALID', 'Composite signature binding invalid', 422, false, 'signature'),
  def('103', 'SIGNATURE_MISSING', 'Required signature missing', 422, false, 'signature'),
  def('104', 'SIGNATURE_EXPIRED', 'Signature expired', 422, false, 'signature'),
  def('200', 'HASH_CHAIN_BROKEN', 'Audit hash chain broken', 422, false, 'hash_chain'),
  def('201', 'MANIFEST_HASH_MISMATCH', 'Manifest hash does not match artifact', 422, false, 'hash_chain'),
  def('202', 'MERKLE_ROOT_MISMATCH', 'Merkle root does not match audit entries', 422, false, 'hash_chain'),
  def('203', 'DUAL_HASH_MISMATCH', 'Dual hash chain inconsistency', 422, false, 'hash_chain'),
  def('204', 'INTENT_HASH_MISMATCH', 'Intent hash mismatch', 422, false, 'hash_chain'),
  def('300', 'AGENT_REVOKED', 'Agent has been revoked', 403, false, 'identity'),
  def('301', 'KEY_EXPIRED', 'Signing key expired', 422, false, 'identity'),
  def('302', 'KEY_REVOKED', 'Signing key revoked', 422, false, 'identity'),
  def('303', 'KID_MISMATCH', 'Key identifier does not match public key', 422, false, 'identity'),
  def('304', 'RPR_INVALID', 'Responsible principal record invalid', 422, false, 'identity'),
  def('400', 'TIER_INSUFFICIENT', 'Security tier below minimum', 403, false, 'policy'),
  def('401', 'POLICY_VIOLATION', 'Action violates policy', 403, false, 'policy'),
  def('402', 'DOWNGRADE_ATTEMPT', 'Security tier downgrade not allowed', 403, false, 'policy'),
  def('403', 'CAPABILITY_DENIED', 'Capability not authorized', 403, false, 'policy'),
  def('500', 'SESSION_NONCE_INVALID', 'Session nonce invalid or missing', 422, false, 'session'),
  def('501', 'SESSION_EXPIRED', 'Session expired', 422, true, 'session'),
  def('502', 'SESSION_REPLAY', 'Session replay detected', 409, false, 'session'),
  def('503', 'SEQUENCE_OUT_OF_ORDER', 'Message sequence out of order', 409, false, 'session'),
  def('600', 'A2A_HANDSHAKE_FAILED', 'Agent-to-agent handshake failed', 502, true, 'a2a'),
  def('601', 'A2A_BUNDLE_REJECTED', 'Peer bundle rejected', 422, false, 'a2a'),
  def('602', 'A2A_CAPABILITY_MISMATCH', 'Requested capabilities not available', 422, false, 'a2a'),
  def('603', 'A2A_SESSION_CLOSED', 'Agent-to-agent session closed', 409, true, 'a2a'),
  def('604', 'A2A_DECRYPT_FAILED', 'AES-GCM decryption failed', 422, false, 'a2a'),
  def('700', 'RATE_LIMIT_EXCEEDED', 'Rate limit exceeded', 429, true, 'rate_limit'),
  def('701', 'CIRCUIT_OPEN', 'Circuit breaker open', 503, true, 'rate_limit'),
  def('702', 'BACKPRESSURE', 'Service under backpressure, retry later', 503, true, 'rate_limit'),
  def('900', 'INTERNAL_ERROR', 'Internal error', 500, true, 'internal'),
  def('901', 'ALGORITHM_UNAVAILABLE', 'Algorithm not available or not registered', 422, false, 'internal'),
  def('902', 'HSM_ERROR', 'HSM operation failed', 502, true, 'internal'),
] as const;

export type ErrorName = (typeof ERROR_DEFINITIONS)[number]['name'];

const BY_NAME: ReadonlyMap<string, ErrorDefinition> = new Map(ERROR_DEFINITIONS.map((d) => [d.name, d]));

export function errorDefinition(name: ErrorName): ErrorDefinition {
  // Every ErrorName is in the table by construction.
  return BY_NAME.get(name)!;
}

/** The wire code of an error under a profile: `PROTO-E001`, `DCP-E001`. */
export function errorCode(name: ErrorName, profile: ProtocolProfile): string {
  return profile.errorPrefix + errorDefinition(name).number;
}

/** Reverse lookup of a wire code (any profile prefix) to its definition. */
export function parseErrorCode(code: string, profile: ProtocolProfile): ErrorDefinition | undefined {
  if (!code.startsWith(profile.errorPrefix)) return undefined;
  const number = code.slice(profile.errorPrefix.length);
  return ERROR_DEFINITIONS.find((d) => d.number === number);
}

export function isErrorName(value: unknown): value is ErrorName {
  return typeof value === 'string' && BY_NAME.has(value);
}
