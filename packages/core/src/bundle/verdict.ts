// The one verdict assembler: an analysis, the clock and the external outcomes (revocation, anchor,
// attestation) become the /verify response. DECISIONS D12 (shape, order), D13 (codes), D19–D21; issue 13 item 2.
import { errorCode, errorDefinition } from '../errors.ts';
import type { ProtocolProfile } from '../profile.ts';
import { timeFindings } from './time-checks.ts';
import type {
  AnalysisFinding,
  BundleAnalysis,
  CheckName,
  CheckStatus,
  ErrorDetail,
  ResolvedVerifierSettings,
  SecurityTier,
  VerifyResponse,
} from './types.ts';
import { uncoveredMemberWarnings } from './uncovered.ts';

/** The checks a service runs outside the pure engine (they need I/O or the operator's trust material). */
export type ExternalCheckName = 'revocation' | 'anchor' | 'attestation';

/** One external check's contribution to the verdict, computed by the service. */
export interface ExternalOutcome {
  readonly check: ExternalCheckName;
  readonly status: CheckStatus;
  readonly error?: ErrorDetail;
  readonly warnings: readonly string[];
}

/** Renders findings under the profile: codes `PROTO-E…`/`DCP-E…`, retryable from the registry. */
export function renderFinding(finding: AnalysisFinding, profile: ProtocolProfile): ErrorDetail {
  return {
    code: errorCode(finding.code, profile),
    check: finding.check,
    message: finding.message,
    retryable: errorDefinition(finding.code).retryable,
  };
}

interface VerdictParts {
  readonly verified: boolean;
  readonly version: string;
  readonly resolvedTier: SecurityTier | undefined;
  readonly checks: Partial<Record<CheckName, CheckStatus>>;
  readonly errors: readonly string[];
  readonly errorDetails: readonly ErrorDetail[];
  readonly warnings: readonly string[];
}

/**
 * D12's shape, the only place it is written: `errors` and `error_details` only when not verified,
 * `warnings` only for V2 and only when there are some, `resolved_tier` only when known.
 */
function respond(parts: VerdictParts): VerifyResponse {
  const v2 = parts.version === '2.0';
  return {
    verified: parts.verified,
    version: parts.version,
    ...(parts.resolvedTier === undefined ? {} : { resolved_tier: parts.resolvedTier }),
    checks: parts.checks,
    ...(parts.verified ? {} : { errors: [...parts.errors], error_details: [...parts.errorDetails] }),
    ...(v2 && parts.warnings.length > 0 ? { warnings: [...parts.warnings] } : {}),
  };
}

/**
 * D12: a failing external check makes `verified` false and adds its message to `errors` and its detail
 * to `error_details`; its warnings are appended (V2 replies only). Used by a service that holds only the
 * engine's response (its analysis was finalized in a worker thread).
 */
export function addExternalOutcomes(
  response: VerifyResponse,
  outcomes: readonly ExternalOutcome[],
): VerifyResponse {
  if (outcomes.length === 0) return response;
  const checks = { ...response.checks };
  const errors = [...(response.errors ?? [])];
  const errorDetails = [...(response.error_details ?? [])];
  const warnings = [...(response.warnings ?? [])];
  for (const outcome of outcomes) {
    checks[outcome.check] = outcome.status;
    if (outcome.error !== undefined) {
      errors.push(outcome.error.message);
      errorDetails.push(outcome.error);
    }
    warnings.push(...outcome.warnings);
  }
  return respond({
    verified: response.verified && outcomes.every((o) => o.status !== 'fail'),
    version: response.version,
    resolvedTier: response.resolved_tier,
    checks,
    errors,
    errorDetails,
    warnings,
  });
}

/**
 * The verdict: `verified` only when no finding exists and no check failed, the clock's findings
 * (D8, D5) re-evaluated now, then the external outcomes merged in D12's check order.
 */
export function assembleVerdict(
  analysis: BundleAnalysis,
  now: Date,
  settings: ResolvedVerifierSettings,
  profile: ProtocolProfile,
  external: readonly ExternalOutcome[] = [],
): VerifyResponse {
  const checks: Partial<Record<CheckName, CheckStatus>> = { ...analysis.checks };
  const findings: AnalysisFinding[] = [...analysis.findings];
  const time = now instanceof Date ? now.getTime() : Number.NaN;
  if (Number.isNaN(time)) {
    findings.push({
      check: 'request',
      code: 'INTERNAL_ERROR',
      message: 'The verifier clock returned an invalid date',
    });
  } else {
    for (const finding of timeFindings(analysis, time, settings)) {
      findings.push(finding);
      if (finding.check === 'key_validity' || finding.check === 'session_nonce')
        checks[finding.check] = 'fail';
    }
  }
  const verified = findings.length === 0 && Object.values(checks).every((s) => s !== 'fail');
  const v2 = analysis.version === '2.0';
  const list: readonly AnalysisFinding[] =
    findings.length > 0 || verified
      ? findings
      : [{ check: 'request', code: 'INTERNAL_ERROR', message: 'A check failed without a reason' }];
  const engine = respond({
    verified,
    version: analysis.version,
    resolvedTier: v2 ? analysis.resolvedTier : undefined,
    checks,
    errors: list.map((f) => f.message),
    errorDetails: list.map((f) => renderFinding(f, profile)),
    warnings: [...analysis.warnings, ...uncoveredMemberWarnings(analysis.uncoveredMembers ?? [])],
  });
  return addExternalOutcomes(engine, external);
}
