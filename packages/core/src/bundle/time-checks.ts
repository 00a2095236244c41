// The time-dependent part of key_validity (key expiry/age, RPR expiry) and session_nonce (session expiry),
// re-run against the clock at every finalize. DECISIONS D8 (E301/E302/E304), D5 (E501).
import { DEFAULT_MAX_CLOCK_SKEW_MS } from '../time/clock-skew.ts';
import { instantOf } from '../time/instant.ts';
import type { AnalysisFinding, BundleAnalysis, ResolvedVerifierSettings } from './types.ts';

const DAY_MS = 86_400_000;

/** The findings the clock adds to a (possibly cached) analysis; the checks they fail are named in each. */
export function timeFindings(
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
      const expires = instantOf(key.expiresAt, 'earliest');
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
    const created = instantOf(key.createdAt, 'earliest');
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
    } else if (created - now > DEFAULT_MAX_CLOCK_SKEW_MS) {
      // P231: the signer writes `created_at`; a key dated ahead would have a negative age and never age out.
      out.push({
        check: 'key_validity',
        code: 'KEY_EXPIRED',
        message: `Key ${key.kid} is dated ahead of the verifier's clock (created ${key.createdAt}): its age cannot be counted`,
      });
    }
  }
  if (typeof facts.rprExpiresAt === 'string') {
    const expires = instantOf(facts.rprExpiresAt, 'earliest');
    if (Number.isNaN(expires) || expires <= now) {
      out.push({
        check: 'key_validity',
        code: 'RPR_INVALID',
        message: `Responsible principal record expired at ${facts.rprExpiresAt}`,
      });
    }
  }
  if (typeof facts.sessionExpiresAt === 'string') {
    const expires = instantOf(facts.sessionExpiresAt, 'earliest');
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
