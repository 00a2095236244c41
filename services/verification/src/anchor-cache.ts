// A bounded per-receipt memory of anchor checks, shared by concurrent requests, so a receipt costs the operator's
// RPC quota at most once per TTL however often it is sent. Issue 12 item 6 (row i); DECISIONS D19.
import { createHash } from 'node:crypto';
import { canonicalBytesV2, type FinalConfirmations, finalConfirmationsFor } from '@proto/core';
import type { AnchorCheck } from '@proto/service-kit';
import { LRUCache } from 'lru-cache';

export interface AnchorCacheOptions {
  /** ANCHOR_VERIFY_CACHE_MAX_ENTRIES: 0 keeps nothing (concurrent identical look-ups are still shared). */
  readonly maxEntries: number;
  /** ANCHOR_VERIFY_CACHE_TTL_MS: how long a final answer (pass, or a non-retryable fail or skip) is kept. */
  readonly ttlMs: number;
  /** ANCHOR_VERIFY_CACHE_RETRY_TTL_MS: how long a retryable answer (outage, not yet confirmed) is kept; 0: never. */
  readonly retryTtlMs: number;
  /**
   * ANCHOR_VERIFY_CACHE_FINAL_CONFIRMATIONS: a pass reporting fewer confirmations than its chain's entry (a chain
   * receipt a reorganisation may still undo) is kept like a retryable answer, for `retryTtlMs` only (P393; per chain
   * name, then receipt kind, P462). Absent: every pass is final.
   */
  readonly finalConfirmations?: FinalConfirmations;
}

export interface AnchorCheckCache {
  /** The answer for this receipt and bundle hashes: remembered, in flight, or from `run` (called at most once). */
  check(
    receipt: unknown,
    bundleHash: string,
    secondaryHash: string | undefined,
    run: () => Promise<AnchorCheck>,
  ): Promise<AnchorCheck>;
}

/**
 * Key = SHA-256 of the receipt's canonical JSON and the bundle hash it is checked against, so two spellings of
 * one receipt share an entry and a receipt checked against another bundle does not. Undefined when the
 * receipt has no canonical form (it then fails offline, before any I/O, and is not worth remembering).
 */
export function anchorCacheKey(
  receipt: unknown,
  bundleHash: string,
  secondaryHash?: string,
): string | undefined {
  let canonical: ReturnType<typeof canonicalBytesV2>;
  try {
    canonical = canonicalBytesV2(receipt);
  } catch {
    return undefined;
  }
  if (!canonical.ok) return undefined;
  // The secondary (P62) too: it follows from the bytes bundleHash covers, but the key should not rely on that.
  return createHash('sha256')
    .update(canonical.value)
    .update('\n')
    .update(bundleHash)
    .update('\n')
    .update(secondaryHash ?? '')
    .digest('hex');
}

export function createAnchorCheckCache(options: AnchorCacheOptions): AnchorCheckCache {
  const remembered =
    options.maxEntries > 0
      ? new LRUCache<string, AnchorCheck>({ max: options.maxEntries, ttl: options.ttlMs })
      : undefined;
  // Bounded by the requests in flight, themselves bounded by the worker pool's queue.
  const inFlight = new Map<string, Promise<AnchorCheck>>();

  const remember = (key: string, answer: AnchorCheck, chain: string | undefined) => {
    if (remembered === undefined) return;
    // P393: a shallow pass is not final: the transaction may leave the chain in a reorganisation. How shallow is
    // the receipt's chain's (P462): 64 blocks on Ethereum, 6 on Bitcoin by default.
    const shallow =
      answer.status === 'pass' &&
      answer.confirmations !== undefined &&
      options.finalConfirmations !== undefined &&
      answer.confirmations < finalConfirmationsFor(options.finalConfirmations, chain, answer.kind);
    const final = !shallow && (answer.status === 'pass' || !answer.retryable);
    // lru-cache reads ttl 0 as "forever": a retryable answer with no retry TTL is simply not kept.
    if (final) remembered.set(key, answer, { ttl: options.ttlMs });
    else if (options.retryTtlMs > 0) remembered.set(key, answer, { ttl: options.retryTtlMs });
  };

  return {
    async check(receipt, bundleHash, secondaryHash, run) {
      const key = anchorCacheKey(receipt, bundleHash, secondaryHash);
      if (key === undefined) return run();
      const known = remembered?.get(key);
      if (known !== undefined) return known;
      const pending = inFlight.get(key);
      if (pending !== undefined) return pending;
      const started = run().then((answer) => {
        remember(key, answer, chainOf(receipt));
        return answer;
      });
      inFlight.set(key, started);
      try {
        return await started;
      } finally {
        inFlight.delete(key);
      }
    },
  };
}

/** The receipt's `chain` name (SPEC.md's receipts all carry one), if it is a string. */
function chainOf(receipt: unknown): string | undefined {
  if (typeof receipt !== 'object' || receipt === null) return undefined;
  const chain = (receipt as { chain?: unknown }).chain;
  return typeof chain === 'string' ? chain : undefined;
}
