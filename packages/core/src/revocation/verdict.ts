// The I/O-free revocation policy of a verifier: from the newest authentic list and the reason (if any)
// why the current status is unknown, decide pass / fail / skipped. DECISIONS D20 (fail closed at elevated+).
import type { SecurityTier } from '../bundle/types.ts';
import { type CoreError, coreError } from '../result.ts';
import { findRevocation } from './list.ts';
import type { RevocationEntry, RevocationListProblem, UnsignedRevocationList } from './types.ts';

/** Why a verifier cannot establish the current revocation status. */
export type RevocationStatusProblem =
  | RevocationListProblem
  /** Network error, timeout, HTTP error, unreadable or oversized body. */
  | 'unavailable'
  /** No list source is configured for the bundle's jurisdiction (or it names none). */
  | 'no_source';

export interface RevocationDecisionInput {
  readonly tier: SecurityTier;
  /** The bundle's agent id first, then its signers' ids. */
  readonly ids: readonly string[];
  /** The newest authentic list known for the jurisdiction, even if stale: its entries are permanent. */
  readonly list?: Pick<UnsignedRevocationList, 'entries' | 'list_number'> | undefined;
  /** Set when the current status is unknown (no fresh, trusted list in hand). */
  readonly problem?: { readonly reason: RevocationStatusProblem; readonly message: string } | undefined;
  /** Treat `no_source` as a failure at elevated/maximum too (default false: skipped with a warning). */
  readonly failClosedWithoutSource?: boolean;
}

interface RevocationDecisionFields {
  readonly retryable: boolean;
  readonly warning?: string;
  readonly reason?: RevocationStatusProblem;
  readonly entry?: RevocationEntry;
  readonly listNumber?: number;
}

/** A `fail` carries its error by type (P209), so no reader has to supply a code of its own. */
export type RevocationDecision =
  | (RevocationDecisionFields & { readonly status: 'pass'; readonly error?: undefined })
  | (RevocationDecisionFields & {
      readonly status: 'skipped';
      readonly error?: undefined;
      readonly warning: string;
    })
  | (RevocationDecisionFields & {
      readonly status: 'fail';
      /** AGENT_REVOKED (E300), or CIRCUIT_OPEN (E701, retryable) when failing closed. */
      readonly error: CoreError;
    });

/** D20: at elevated and maximum an unknown revocation status fails the bundle; below, it is a warning. */
export function failsClosed(tier: SecurityTier): boolean {
  return tier === 'elevated' || tier === 'maximum';
}

/**
 * 1. An authentic list (fresh or not) naming any of the ids: fail, AGENT_REVOKED, not retryable.
 * 2. Status unknown: at elevated/maximum fail with CIRCUIT_OPEN (retryable: the verifier's source,
 *    not the bundle, is at fault, and a later fresh list may settle it); below, skipped + warning.
 * 3. Otherwise pass.
 */
export function decideRevocation(input: RevocationDecisionInput): RevocationDecision {
  const listNumber = input.list?.list_number;
  const withNumber = listNumber === undefined ? {} : { listNumber };
  const entry = input.list ? findRevocation(input.list, input.ids) : undefined;
  if (entry !== undefined) {
    return {
      status: 'fail',
      error: coreError('AGENT_REVOKED', `${entry.agent_id} was revoked at ${entry.revoked_at}`),
      retryable: false,
      entry,
      ...withNumber,
    };
  }
  const problem =
    input.problem ??
    (input.list === undefined
      ? { reason: 'unavailable' as const, message: 'no revocation list' }
      : undefined);
  if (problem === undefined) return { status: 'pass', retryable: false, ...withNumber };
  const closed =
    failsClosed(input.tier) && (problem.reason !== 'no_source' || input.failClosedWithoutSource === true);
  if (closed) {
    return {
      status: 'fail',
      error: coreError('CIRCUIT_OPEN', `revocation status unknown at tier ${input.tier}: ${problem.message}`),
      retryable: true,
      reason: problem.reason,
      ...withNumber,
    };
  }
  return {
    status: 'skipped',
    retryable: false,
    warning: `revocation status not established: ${problem.message}`,
    reason: problem.reason,
    ...withNumber,
  };
}
