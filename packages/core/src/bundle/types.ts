// Shared types of the bundle engine: verifier configuration, check results and the /verify response.
// SPEC.md "Verify result", DECISIONS D9–D12 (modes, tiers, response shape, check values).
import type { ErrorName } from '../errors.ts';
import type { ProfileName, ProtocolProfile } from '../profile.ts';

export type VerificationMode = 'classical_only' | 'hybrid_preferred' | 'hybrid_required' | 'pq_only';
export type SecurityTier = 'routine' | 'standard' | 'elevated' | 'maximum';
export type CheckStatus = 'pass' | 'fail' | 'absent' | 'skipped';
export type BundleVersion = '1.0' | '2.0';

/** SPEC.md's VerifierPolicy shape (validated by the verifier_policy schema when a Verifier is built). */
export interface VerifierPolicy {
  readonly default_mode: VerificationMode;
  readonly risk_overrides: {
    readonly low: VerificationMode;
    readonly medium: VerificationMode;
    readonly high: VerificationMode;
  };
  readonly min_accepted_version: string;
  readonly accepted_algorithms: { readonly signing: readonly string[]; readonly hash: readonly string[] };
}

/** Check keys of the response (D12): SPEC.md's six plus the optional extras. */
export type CheckName =
  | 'schema'
  | 'classical_sig'
  | 'pq_sig'
  | 'manifest_integrity'
  | 'hash_chain'
  | 'session_nonce'
  | 'artifact_sigs'
  | 'intent_hash'
  | 'checkpoints'
  | 'key_validity'
  | 'bundle_hash'
  | 'merkle_root'
  | 'revocation'
  | 'anchor'
  | 'attestation';

export interface ErrorDetail {
  /** Wire code under the active profile, e.g. `PROTO-E200`. */
  readonly code: string;
  readonly check: CheckName | 'request' | 'version' | 'policy';
  readonly message: string;
  readonly retryable: boolean;
}

/** The /verify response (D12). V1 adds `version: "1.0"`; `resolved_tier` is V2 only. */
export interface VerifyResponse {
  readonly verified: boolean;
  readonly version: string;
  readonly resolved_tier?: SecurityTier;
  readonly checks: Partial<Record<CheckName, CheckStatus>>;
  readonly errors?: string[];
  readonly warnings?: string[];
  readonly error_details?: ErrorDetail[];
}

export interface VerifierOptions {
  readonly profile?: ProfileName;
  /** VERIFIER_MODE: the operator's floor (D10). Default hybrid_preferred. */
  readonly mode?: VerificationMode;
  /** VerifierPolicy in SPEC.md's shape; validated. */
  readonly policy?: unknown;
  readonly requireSessionBinding?: boolean;
  readonly requireCompositeBinding?: boolean;
  readonly maxKeyAgeDays?: number;
  /**
   * The service's ATTESTATION_MAX_AGE_DAYS (P452): oldest `attested_at` `verify(request)` accepts for a
   * `jurisdiction_attestation` without `expires_at`. Default 30, as the service's.
   */
  readonly attestationMaxAgeDays?: number;
  readonly allowV1Bundles?: boolean;
  /**
   * PQ_CHECKPOINT_INTERVAL: most audit entries one PQ checkpoint may cover. At `maximum` the limit is
   * always 1 (D6). Unset: no limit below `maximum` (checkpoints are optional there and the tier
   * intervals of SPEC.md are producer guidance).
   */
  readonly checkpointInterval?: number;
  readonly maxAuditEntries?: number;
  readonly maxCheckpoints?: number;
  /** Upstream `require_session_expiry`: a V2 manifest without `session_expires_at` fails (E501). */
  readonly requireSessionExpiry?: boolean;
  /** Upstream `require_audience_binding`: a V2 manifest without `intended_verifier` fails (E401). */
  readonly requireAudienceBinding?: boolean;
  /** This verifier's identity; a manifest `intended_verifier` naming another verifier fails (E401). */
  readonly verifierId?: string;
  /**
   * P502: a V2 bundle no key of the RPR's `binding_keys` signed fails (E401) instead of carrying P490's warning.
   * Default false, as the SDKs verify such bundles; wins over the policy's `require_principal_signature`.
   */
  readonly requirePrincipalSignature?: boolean;
  /** Crypto backend; default selectCryptoBackend('auto'). */
  readonly backend?: import('../crypto/index.ts').CryptoBackend;
  readonly clock?: () => Date;
}

/** Every effective setting of a Verifier: plain JSON data (for /health, capabilities, cache keys). */
export interface ResolvedVerifierSettings {
  readonly profile: ProfileName;
  /** VERIFIER_MODE, the operator's floor (D10). */
  readonly mode: VerificationMode;
  /** The VerifierPolicy with every field filled in. */
  readonly policy: VerifierPolicy;
  readonly advisoryRejectedAlgs: readonly string[];
  readonly requireSessionBinding: boolean;
  readonly requireCompositeBinding: boolean;
  readonly requireSessionExpiry: boolean;
  readonly requireAudienceBinding: boolean;
  readonly verifierId: string | null;
  /** P502: a V2 bundle no key of the RPR's binding_keys signed fails (E401). */
  readonly requirePrincipalSignature: boolean;
  readonly maxKeyAgeDays: number;
  readonly attestationMaxAgeDays: number;
  readonly allowV1Bundles: boolean;
  /** Null: no limit below `maximum` (D6). */
  readonly checkpointInterval: number | null;
  readonly maxAuditEntries: number;
  readonly maxCheckpoints: number;
  /** Bundle versions this verifier accepts after ALLOW_V1_BUNDLES and min_accepted_version (D11). */
  readonly acceptedVersions: readonly BundleVersion[];
  /** Name of the crypto backend in use. */
  readonly backend: string;
}

/** The `check` a finding is reported under: a response check key, or the request/version/policy. */
export type FindingCheck = ErrorDetail['check'];

/** One failed condition found while analysing a bundle, before the profile renders its code. */
export interface AnalysisFinding {
  readonly check: FindingCheck;
  readonly code: ErrorName;
  readonly message: string;
}

/** A key whose signature was evaluated: its validity is re-checked at every finalize (D8). */
export interface SigningKeyUse {
  readonly kid: string;
  readonly source: 'passport' | 'rpr';
  readonly status: string;
  readonly createdAt: string;
  readonly expiresAt: string | null;
}

/** The facts finalize() evaluates against the clock on every call. */
export interface TimeDependentFacts {
  /** Keys that signed something this verifier evaluated (V2). */
  readonly signingKeys: readonly SigningKeyUse[];
  /** RPR `expires_at` (null = never); absent when the RPR could not be read. */
  readonly rprExpiresAt?: string | null;
  /** Manifest `session_expires_at`, when present (V2). */
  readonly sessionExpiresAt?: string;
}

/**
 * The time-independent outcome of verifying one request: schema, hashes, signatures, chains,
 * checkpoints, kids. Immutable and free of functions, so a service may cache it (keyed by
 * bundleHash and the verifier settings) and call finalize() again later.
 */
export interface BundleAnalysis {
  /** `1.0`, `2.0`, `legacy-v2` or `unknown`. */
  readonly version: string;
  readonly resolvedTier?: SecurityTier;
  /** The verification mode applied to signatures (V2). */
  readonly mode?: VerificationMode;
  readonly agentId?: string;
  /** V2: the RPR's `human_id`, the principal's key directory subject (P282). */
  readonly humanId?: string;
  /** Kids whose signatures were evaluated (bundle, artifacts, checkpoints), sorted, unique. */
  readonly signerKids: readonly string[];
  /** The RPR's jurisdiction (revocation lists are per jurisdiction). */
  readonly jurisdiction?: string;
  /** V1: `sha256:` of the V1-canonical RPR; V2: `sha256:` of jcs(RPR payload) (= manifest rpr_hash). */
  readonly rprHash?: string;
  /**
   * V1: `signature.bundle_hash`; V2: `sha256:` + SHA-256(jcs({bundle, signature})) (PROTOCOL §8.3) of the covered form (P247). P123: in
   * V2 present only when `analyze` was asked for it (`AnalyzeOptions.bundleHash` or `.bundleHashSecondary`).
   */
  readonly bundleHash?: string;
  /**
   * P62: `sha3-256:` + SHA3-256 of the same canonical bytes as `bundleHash` (what a receipt's secondary must
   * name). P74: present only when `analyze` was asked for it (`AnalyzeOptions.bundleHashSecondary`).
   */
  readonly bundleHashSecondary?: string;
  readonly sessionNonce?: string;
  /** PQ checkpoints whose both signature halves and coverage verified. */
  readonly checkpointsVerified: number;
  /** Check statuses before time-dependent checks; unset checks render as `skipped`. */
  readonly checks: Readonly<Partial<Record<CheckName, CheckStatus>>>;
  readonly findings: readonly AnalysisFinding[];
  readonly warnings: readonly string[];
  /**
   * V2: the `signed_bundle` / `bundle` members no signature covers, set aside before the checks: the first
   * few paths and the count, all the warnings name (P269). Kept apart from `warnings` so a cached analysis can
   * be finalized with the current request's members.
   */
  readonly uncoveredMembers?: UncoveredMembers;
  readonly timeDependent: TimeDependentFacts;
}

/**
 * Members no signature covers, as an analysis keeps them (P269): a sender adds them at a few bytes each, so
 * the analysis (cloned from a verification thread, counted and held by a cache) keeps only what the warnings
 * name, bounded whatever the body.
 */
export interface UncoveredMembers {
  /** The first `UNCOVERED_WARNINGS_NAMED` paths in sorted order, e.g. `signed_bundle.bundle.note`. */
  readonly named: readonly string[];
  /** How many members were set aside in all, the named ones included. */
  readonly count: number;
}

/** What an analysis computes beyond the verdict's needs (P74, P123). */
export interface AnalyzeOptions {
  /**
   * V2: also compute `bundleHash` (a hash of the whole canonical bundle), which only an anchor receipt, a log
   * look-up or a caller printing it needs. V1 always has it: the V1 signature covers it.
   */
  readonly bundleHash?: boolean;
  /**
   * Also compute `bundleHashSecondary` (a second hash of the whole canonical bundle), and `bundleHash` with it.
   * Only an anchor receipt naming a `bundle_hash_secondary` is checked against it (`receiptNamesSecondary`);
   * the verdict never is.
   */
  readonly bundleHashSecondary?: boolean;
}

/** A configured verifier (createVerifier). */
export interface Verifier {
  readonly profile: ProtocolProfile;
  readonly settings: ResolvedVerifierSettings;
  /** finalize(analyze(request), clock()). Never throws. */
  verify(request: unknown): VerifyResponse;
  /** Everything that does not depend on the clock; cacheable. Never throws. */
  analyze(request: unknown, options?: AnalyzeOptions): BundleAnalysis;
  /** Re-evaluates key expiry/age, RPR expiry and session expiry against `now`. Never throws. */
  finalize(analysis: BundleAnalysis, now: Date): VerifyResponse;
}
