// Public API of the bundle verification engine (V1 and V2): createVerifier, version detection, types.
// SPEC.md "Verify result", PROTOCOL §5–§6; DECISIONS D5–D12.

export {
  type AttestationInHandOptions,
  type AttestationSubject,
  attestationOutcomeInHand,
} from './attestation-in-request.ts';
export {
  type BundleHashes,
  bundleHashesOf,
  computeBundleHashes,
  secondaryBundleHash,
} from './bundle-hashes.ts';
export { readAlike, skeletonOf, wholeScriptLatinReading } from './confusable-skeleton.ts';
export { type DetectedVersion, detectBundleVersion } from './detect.ts';
export {
  anchorOutcome,
  NOT_VERIFIED_REASON,
  unverifiedEvidenceOutcomes,
} from './evidence-outcomes.ts';
export { spelledOut } from './json.ts';
export { V1_CHECK_ORDER, V2_CHECK_ORDER } from './ledger.ts';
export { lookAlikeIdWarnings, lookAlikeReason } from './look-alike-ids.ts';
export { receiptAnalyzeOptions, receiptOutcomeInHand } from './receipt-in-request.ts';
export {
  DEFAULT_ATTESTATION_MAX_AGE_DAYS,
  DEFAULT_MAX_AUDIT_ENTRIES,
  DEFAULT_MAX_CHECKPOINTS,
  DEFAULT_MAX_KEY_AGE_DAYS,
  resolveVerifierSettings,
  type VerifierRuntime,
} from './settings.ts';
export type {
  AnalysisFinding,
  AnalyzeOptions,
  BundleAnalysis,
  BundleVersion,
  CheckName,
  CheckStatus,
  ErrorDetail,
  FindingCheck,
  ResolvedVerifierSettings,
  SecurityTier,
  SigningKeyUse,
  TimeDependentFacts,
  UncoveredMembers,
  VerificationMode,
  Verifier,
  VerifierOptions,
  VerifierPolicy,
  VerifyResponse,
} from './types.ts';
export {
  type CoveredView,
  keptUncoveredMembers,
  splitUncoveredV2,
  UNCOVERED_WARNINGS_NAMED,
  uncoveredMemberWarning,
  uncoveredMemberWarnings,
  V2_BUNDLE_MEMBERS,
} from './uncovered.ts';
export { computeBundleHash } from './v2/pipeline.ts';
export {
  addExternalOutcomes,
  assembleVerdict,
  type ExternalCheckName,
  type ExternalOutcome,
  renderFinding,
} from './verdict.ts';
export { createVerifier } from './verifier.ts';
