// The one place the CLI names what it takes from @proto/core, so the command modules stay short.
// docs/architecture.md §1: the CLI imports core (and an HTTP client for remote calls), never a service.
export {
  type BuildOptions,
  buildSignedBundle,
  checkParsedJson,
  computeBundleHash,
  createVerifier,
  decodeBase64Strict,
  deriveKid,
  detectBundleVersion,
  hashCanonicalV1,
  hashCanonicalV2,
  isProfileName,
  isSecurityTier,
  isVerificationMode,
  keyPairToJson,
  SECURITY_TIERS,
  SIGNING_ALGS,
  type SigningAlg,
  selectCryptoBackend,
  VERIFICATION_MODES,
  type VerifierOptions,
} from '@proto/core';
