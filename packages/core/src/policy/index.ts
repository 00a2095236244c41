// Public surface of the policy module: modes, tiers, intent tier computation, VerifierPolicy.
// SPEC.md "Verification modes", "Verifier policy", "Security tiers"; DECISIONS D9, D10; P1.
export {
  computeIntentScore,
  computeIntentTier,
  MAXIMUM_DATA_CLASSES,
  SENSITIVE_DATA_CLASSES,
} from './intent-tier.ts';
export { isVerificationMode, MODE_REQUIREMENTS, type ModeRequirements, VERIFICATION_MODES } from './modes.ts';
export {
  policyModeForPassport,
  resolveSecurityTier,
  type TierCandidate,
  type TierInputs,
  type TierResolution,
  type TierSource,
} from './resolve-tier.ts';
export {
  isSecurityTier,
  maxTier,
  modeForTier,
  SECURITY_TIERS,
  TIER_PROFILES,
  type TierProfile,
  tierFloorForMode,
  tierRank,
} from './tiers.ts';
export {
  compareVersions,
  DEFAULT_VERIFIER_POLICY,
  type ParsedVerifierPolicy,
  POLICY_HASH_ALGORITHMS,
  POLICY_SIGNING_ALGORITHMS,
  parseVerifierPolicy,
  parseVersion,
  SUPPORTED_BUNDLE_VERSIONS,
  versionAccepted,
} from './verifier-policy.ts';
