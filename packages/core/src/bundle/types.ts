// Shared types of the bundle engine: verifier configuration, check results and the /verify response.
// SPEC.md "Verify result", DECISIONS D9–D12 (modes, tiers, response shape, check values).
import type { ProfileName } from '../profile.ts';

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
  readonly allowV1Bundles?: boolean;
  /** Most events one PQ checkpoint may cover; default: the resolved tier's interval. */
  readonly checkpointInterval?: number;
  readonly maxAuditEntries?: number;
  readonly maxCheckpoints?: number;
  /** Crypto backend; default selectCryptoBackend('auto'). */
  readonly backend?: import('../crypto/index.ts').CryptoBackend;
  readonly clock?: () => Date;
}
