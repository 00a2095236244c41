// The stored form of the bundle corpus (packages/core/test-vectors/bundle-corpus): base bundles,
// and cases = a base plus a JSON Patch, the verifier settings and the expected verdict. D12 names.
import type { ErrorName } from '../../../errors.ts';
import type { ProfileName } from '../../../profile.ts';
import type { CheckName, CheckStatus, SecurityTier, VerificationMode } from '../../types.ts';
import type { PatchOp } from './json-patch.ts';

/** Verifier settings of a case (createVerifier options that JSON can carry, plus the clock). */
export interface CorpusVerifierSettings {
  readonly profile: ProfileName;
  readonly mode?: VerificationMode;
  readonly policy?: unknown;
  readonly allowV1Bundles?: boolean;
  readonly maxKeyAgeDays?: number;
  /** The verifier's clock (ISO 8601): fixtures are built at a fixed time. */
  readonly now: string;
}

export interface CorpusExpectation {
  readonly verified: boolean;
  readonly resolved_tier?: SecurityTier;
  /** Exactly the checks whose status is `fail` (sorted). */
  readonly failed_checks: readonly CheckName[];
  /** Entries that must appear in error_details: wire code under the case's profile and check. */
  readonly errors: ReadonlyArray<{ readonly check: string; readonly code: string }>;
  /** Further check statuses the response must show exactly. */
  readonly checks?: Readonly<Partial<Record<CheckName, CheckStatus>>>;
  /** Whether the response must carry at least one warning. */
  readonly warnings?: boolean;
}

export interface StoredCase {
  readonly id: string;
  readonly description: string;
  /** Base bundle name (bases/<base>.json). */
  readonly base: string;
  /** RFC 6902 operations turning the base signed bundle into this case's signed bundle. */
  readonly patch: readonly PatchOp[];
  /** Extra members of the /verify request besides signed_bundle (e.g. public_key_b64). */
  readonly request?: Readonly<Record<string, unknown>>;
  readonly verifier: CorpusVerifierSettings;
  readonly expect: CorpusExpectation;
}

export interface CorpusIndex {
  readonly _comment: string;
  readonly generated_by: string;
  readonly bases: Readonly<Record<string, { readonly description: string; readonly file: string }>>;
  readonly cases: readonly StoredCase[];
}

/** Case expectation as written in cases.ts: error names, rendered as wire codes when stored. */
export interface ExpectationSpec {
  readonly verified: boolean;
  readonly tier?: SecurityTier;
  readonly fails?: readonly CheckName[];
  readonly errors?: ReadonlyArray<readonly [check: string, code: ErrorName]>;
  readonly checks?: Readonly<Partial<Record<CheckName, CheckStatus>>>;
  readonly warnings?: boolean;
}
