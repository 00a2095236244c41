// Whether a record's signer is revoked, asked of the same revocation checker (and sources) as POST /verify.
// Issue 15 item 1 ("a revoked kid stops authorising"); decision P43 (writes fail closed when the status is unknown).
import { errorCode, type ProtocolProfile } from '@proto/core';
import type { RevocationChecker } from '@proto/service-kit';

export type RevocationGateResult =
  | { readonly status: 'pass' }
  /** A list names one of the ids: the write is refused for good (403). */
  | { readonly status: 'revoked'; readonly code: string; readonly message: string; readonly id: string }
  /** No fresh, trusted list from some source: the write is refused for now (503, retryable). */
  | { readonly status: 'unknown'; readonly code: string; readonly message: string };

export interface RevocationGate {
  /** `ids`: the signing kids and the subjects the signing key speaks for. Never throws. */
  check(ids: readonly string[]): Promise<RevocationGateResult>;
}

/**
 * A record has no jurisdiction and no tier, so the check is asked as for an elevated bundle declaring a
 * configured jurisdiction: every list is searched for the ids (revocations are permanent, stale lists
 * count), and every source must hold a fresh, trusted list, or the answer is "unknown" (fail closed, P43).
 * Undefined when no revocation source is configured: there is nothing to ask.
 */
export function revocationGate(
  checker: RevocationChecker | undefined,
  jurisdictions: readonly string[],
  profile: ProtocolProfile,
): RevocationGate | undefined {
  const jurisdiction = jurisdictions[0];
  if (checker === undefined || jurisdiction === undefined) return undefined;
  return {
    async check(ids) {
      const [first, ...rest] = ids;
      if (first === undefined) return { status: 'pass' };
      const result = await checker.check({ jurisdiction, agentId: first, signerIds: rest, tier: 'elevated' });
      if (result.status === 'pass') return { status: 'pass' };
      // P209: a failing check carries its own code and message by type; none is supplied here.
      if (result.status === 'fail') {
        return result.entry === undefined
          ? { status: 'unknown', code: result.code, message: result.message }
          : { status: 'revoked', code: result.code, message: result.message, id: result.entry.agent_id };
      }
      // `skipped` cannot happen at elevated with a configured jurisdiction; should it, the status is unknown and
      // the write waits (P43), under the code the checker gives an unknown status at elevated (E701).
      return { status: 'unknown', code: errorCode('CIRCUIT_OPEN', profile), message: result.warning };
    },
  };
}
