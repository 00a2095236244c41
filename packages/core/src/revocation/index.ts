// Public API of the revocation module: the jurisdictional list (D20), attestations (D21), the verifier policy.
// SPEC.md "Revocation record and jurisdictional revocation list", "Jurisdiction attestation"; DECISIONS D20, D21.
export {
  ATTESTATION_SCHEMA,
  checkAttestationInHand,
  DEFAULT_ATTESTATION_MAX_AGE_MS,
  signAttestation,
  type VerifyAttestationOptions,
  verifyAttestation,
} from './attestation.ts';
export {
  DEFAULT_MAX_CLOCK_SKEW_MS,
  findRevocation,
  isAgentRevoked,
  REVOCATION_LIST_SCHEMA,
  reasonHash,
  signRevocationList,
  type VerifyRevocationListOptions,
  verifyRevocationList,
} from './list.ts';
export { bundleReadAlikeRevocationWarnings, readAlikeRevocationWarnings } from './look-alike.ts';
export { parseTrustedKey, type SigningOptions } from './signed-document.ts';
export type {
  AttestationError,
  AttestationProblem,
  Ed25519SignatureObject,
  IssuedAttestation,
  RevocationEntry,
  RevocationList,
  RevocationListError,
  RevocationListProblem,
  TrustedKey,
  TrustedKeyInput,
  UnsignedAttestation,
  UnsignedRevocationList,
  VerifiedAttestation,
  VerifiedRevocationList,
} from './types.ts';
export {
  decideRevocation,
  failsClosed,
  type RevocationDecision,
  type RevocationDecisionInput,
  type RevocationStatusProblem,
} from './verdict.ts';
