// The one place the revocation service reaches into @proto/core's revocation module (packages/core/src/revocation).
// Kept as one list so the service's use of core stays visible in one place. D20, D21.
export {
  DEFAULT_ATTESTATION_MAX_AGE_MS,
  dateTimeInstant,
  type IssuedAttestation,
  isRfc3339Instant,
  parseTrustedKey,
  type RevocationList,
  reasonHash,
  signAttestation,
  signRevocationList,
  type TrustedKey,
} from '@proto/core';
