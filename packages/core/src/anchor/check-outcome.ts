// Outcome of an anchor receipt check and the helpers every chain's check shares. DECISIONS D19, D12.

import type { ErrorName } from '../errors.ts';
import { instantOf } from '../time/instant.ts';
import type { ParsedAnchorReceipt } from './receipt.ts';

export type AnchorCheckStatus = 'pass' | 'fail' | 'skipped';

/**
 * Outcome of a receipt check. `fail`: the receipt contradicts the hash, or a well-formed answer of the chain or
 * log contradicts it (no such transaction, reverted, another block, no matching event or payload, a proof that
 * does not verify). `skipped`: nothing could be decided (source unreachable or answering something that is not
 * an answer, not yet anchored or confirmed, no source configured); `retryable` says whether asking again later
 * may decide it.
 */
interface AnchorCheckFacts {
  readonly message: string;
  readonly retryable: boolean;
  readonly warnings: readonly string[];
  readonly kind?: ParsedAnchorReceipt['kind'];
  /** Confirmations the source reported. */
  readonly confirmations?: number;
  /** Log receipts checked with witness keys: k, the witnesses that cosigned, and lines not counted (P60). */
  readonly witnesses?: {
    readonly quorum: number;
    readonly cosigned: readonly string[];
    readonly refused: readonly string[];
  };
}

/**
 * P194: a `fail` or `skipped` always carries the registry name of its cause, by type, so no reader has to pick
 * one for it (a default would report a failure under a code it did not earn).
 */
export type AnchorCheck = AnchorCheckFacts &
  (
    | { readonly status: 'pass'; readonly code?: undefined }
    | { readonly status: 'fail' | 'skipped'; readonly code: ErrorName }
  );

/** What a helper below may add to the outcome it builds; never its status or code. */
export type AnchorCheckExtra = Partial<Omit<AnchorCheckFacts, 'message'>>;

/**
 * Codes used by anchor checks (registry names, rendered with the profile's prefix):
 * contradiction E202, malformed receipt E002, source unreachable or its answer malformed E701 (retryable, P161),
 * not anchored or confirmed yet E702 (retryable), no source configured for the chain E901,
 * a log checkpoint without the witness quorum the verifier requires E103 (P60).
 */
export const ANCHOR_CHECK_CODES = {
  contradiction: 'MERKLE_ROOT_MISMATCH',
  malformed: 'ARTIFACT_SCHEMA_INVALID',
  unreachable: 'CIRCUIT_OPEN',
  notYet: 'BACKPRESSURE',
  noSource: 'ALGORITHM_UNAVAILABLE',
  witnessQuorum: 'SIGNATURE_MISSING',
} as const satisfies Record<string, ErrorName>;

export function anchorPass(message: string, extra: AnchorCheckExtra = {}): AnchorCheck {
  return { status: 'pass', message, retryable: false, warnings: [], ...extra };
}

export function anchorFail(
  message: string,
  code: ErrorName = ANCHOR_CHECK_CODES.contradiction,
  extra: AnchorCheckExtra = {},
): AnchorCheck {
  return { status: 'fail', message, code, retryable: false, warnings: [], ...extra };
}

export function anchorSkipped(
  message: string,
  code: ErrorName,
  retryable: boolean,
  extra: AnchorCheckExtra = {},
): AnchorCheck {
  return {
    status: 'skipped',
    message,
    code,
    retryable,
    ...extra,
    warnings: [message, ...(extra.warnings ?? [])],
  };
}

/**
 * The source answered something that is not an answer (P161): a field missing or of the wrong type, or about
 * another transaction or entry than asked. It says nothing about the receipt, so it is the source being
 * unavailable, as an unreachable or non-JSON one is: `skipped` E701, retryable, kept only for the retry TTL. A
 * `fail` here would let a faulty node turn a genuine bundle into `verified: false` for the whole cache TTL, and
 * would tell an attacker nothing a lying source could not already say with a well-formed "no such transaction".
 */
export function sourceMalformed(
  message: string,
  kind: ParsedAnchorReceipt['kind'],
  extra: AnchorCheckExtra = {},
): AnchorCheck {
  return anchorSkipped(message, ANCHOR_CHECK_CODES.unreachable, true, { kind, ...extra });
}

/** A receipt that passed the offline checks: what the chain must show. */
export interface PreparedReceipt {
  readonly parsed: ParsedAnchorReceipt;
  /** The 32-byte value the chain must carry (batch root, or the digest itself for an unbatched receipt), hex. */
  readonly committed: string;
  readonly warnings: readonly string[];
}

export function needConfirmations(
  prepared: PreparedReceipt,
  confirmations: number,
  minConfirmations: number,
  what: string,
): AnchorCheck {
  const base = { kind: prepared.parsed.kind, confirmations };
  if (confirmations < minConfirmations) {
    return anchorSkipped(
      `${what} has ${confirmations} confirmation(s), ${minConfirmations} required`,
      ANCHOR_CHECK_CODES.notYet,
      true,
      { ...base, warnings: prepared.warnings },
    );
  }
  return anchorPass(`${what} confirmed (${confirmations} confirmation(s))`, {
    ...base,
    warnings: [...prepared.warnings],
  });
}

export function notYetSent(prepared: PreparedReceipt): AnchorCheck {
  return anchorSkipped('receipt is pending: nothing written on chain yet', ANCHOR_CHECK_CODES.notYet, true, {
    kind: prepared.parsed.kind,
  });
}

export function isoSeconds(seconds: bigint | number): string {
  return new Date(Number(seconds) * 1000).toISOString();
}

/**
 * Whether a receipt's `anchored_at` names the chain's time. Chain times are POSIX seconds, which never name a leap
 * second, so a claimed `…:60` (read as the millisecond before it, P178) never matches one.
 */
export function sameInstant(a: string, b: string): boolean {
  const at = instantOf(a, 'earliest');
  return !Number.isNaN(at) && at === instantOf(b, 'earliest');
}
