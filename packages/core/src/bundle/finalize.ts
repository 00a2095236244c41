// finalize(): the time-dependent checks (key expiry/age, RPR expiry, session expiry) and the response.
// DECISIONS D8 (E301/E302/E304), D5 (E501), D12 (response shape), D13 (codes under the profile prefix).
import { errorCode, errorDefinition } from '../errors.ts';
import type { ProtocolProfile } from '../profile.ts';
import type {
  AnalysisFinding,
  BundleAnalysis,
  CheckName,
  CheckStatus,
  ErrorDetail,
  ResolvedVerifierSettings,
  VerifyResponse,
} from './types.ts';
import { uncoveredMemberWarning } from './uncovered.ts';

const DAY_MS = 86_400_000;

function timeFindings(
  analysis: BundleAnalysis,
  now: number,
  settings: ResolvedVerifierSettings,
): AnalysisFinding[] {
  const out: AnalysisFinding[] = [];
  const facts = analysis.timeDependent;
  const maxAge = settings.maxKeyAgeDays * DAY_MS;
  for (const key of facts.signingKeys ?? []) {
    if (key.status === 'revoked') {
      out.push({ check: 'key_validity', code: 'KEY_REVOKED', message: `Key ${key.kid} is revoked` });
    } else if (key.status !== 'active') {
      out.push({
        check: 'key_validity',
        code: 'KEY_EXPIRED',
        message: `Key ${key.kid} has status '${key.status}'`,
      });
    }
    if (key.expiresAt !== null) {
      const expires = Date.parse(key.expiresAt);
      if (Number.isNaN(expires)) {
        out.push({
          check: 'key_validity',
          code: 'KEY_EXPIRED',
          message: `Key ${key.kid} has an unreadable expires_at`,
        });
      } else if (expires <= now) {
        out.push({
          check: 'key_validity',
          code: 'KEY_EXPIRED',
          message: `Key ${key.kid} has expired (${key.expiresAt})`,
        });
      }
    }
    const created = Date.parse(key.createdAt);
    if (Number.isNaN(created)) {
      out.push({
        check: 'key_validity',
        code: 'KEY_EXPIRED',
        message: `Key ${key.kid} has an unreadable created_at`,
      });
    } else if (now - created > maxAge) {
      out.push({
        check: 'key_validity',
        code: 'KEY_EXPIRED',
        message: `Key ${key.kid} exceeds max age of ${settings.maxKeyAgeDays} days (created ${key.createdAt})`,
      });
    }
  }
  if (typeof facts.rprExpiresAt === 'string') {
    const expires = Date.parse(facts.rprExpiresAt);
    if (Number.isNaN(expires) || expires <= now) {
      out.push({
        check: 'key_validity',
        code: 'RPR_INVALID',
        message: `Responsible principal record expired at ${facts.rprExpiresAt}`,
      });
    }
  }
  if (typeof facts.sessionExpiresAt === 'string') {
    const expires = Date.parse(facts.sessionExpiresAt);
    if (Number.isNaN(expires) || expires <= now) {
      out.push({
        check: 'session_nonce',
        code: 'SESSION_EXPIRED',
        message: `Session expired at ${facts.sessionExpiresAt}`,
      });
    }
  }
  return out;
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

/**
 * D12: `verified` is true only when no finding exists and no check failed; `errors` and
 * `error_details` appear only when not verified; `warnings` (V2) only when there are some;
 * `resolved_tier` for V2 only.
 */
export function finalizeAnalysis(
  analysis: BundleAnalysis,
  now: Date,
  settings: ResolvedVerifierSettings,
  profile: ProtocolProfile,
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
  const warnings = [...analysis.warnings, ...(analysis.uncoveredMembers ?? []).map(uncoveredMemberWarning)];
  const list: readonly AnalysisFinding[] =
    findings.length > 0 || verified
      ? findings
      : [{ check: 'request', code: 'INTERNAL_ERROR', message: 'A check failed without a reason' }];
  return {
    verified,
    version: analysis.version,
    ...(v2 && analysis.resolvedTier !== undefined ? { resolved_tier: analysis.resolvedTier } : {}),
    checks,
    ...(verified
      ? {}
      : { errors: list.map((f) => f.message), error_details: list.map((f) => renderFinding(f, profile)) }),
    ...(v2 && warnings.length > 0 ? { warnings } : {}),
  };
}
