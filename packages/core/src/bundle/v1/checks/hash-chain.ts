// V1 check `hash_chain`: sha256 accepted by policy (every V1 hash is sha256), and each audit entry's
// prev_hash is GENESIS or the bare-hex leaf of the entry before (PROTOCOL §2.1, D3).
// Errors POLICY_VIOLATION, HASH_CHAIN_BROKEN.
import { describe, prop } from '../../json.ts';
import type { Ledger } from '../../ledger.ts';
import type { VerifierRuntime } from '../../settings.ts';
import type { EntryBreaks, ParsedV1 } from './parsed.ts';

/** Recorded before merkle_root, as the finding order of the response has always been. */
export function checkHashAlgorithmPolicy(ledger: Ledger, runtime: VerifierRuntime): void {
  if (!runtime.settings.policy.accepted_algorithms.hash.includes('sha256')) {
    ledger.fail(
      'hash_chain',
      'POLICY_VIOLATION',
      'Hash algorithm sha256 (every V1 hash) not accepted by verifier policy',
    );
  }
}

/** The prev_hash breaks; the pipeline records them (interleaved with intent_hash's by entry). */
export function findHashChainBreaks(parsed: ParsedV1, leaves: readonly string[]): EntryBreaks {
  let first: EntryBreaks['first'];
  let count = 0;
  parsed.entries.forEach((entry, i) => {
    const prev = prop(entry, 'prev_hash');
    const expected = i === 0 ? 'GENESIS' : leaves[i - 1]!;
    if (prev !== expected && count++ === 0) {
      first = {
        entry: i,
        message: `prev_hash chain (entry ${i}): expected ${expected}, got ${describe(prev)}`,
      };
    }
  });
  return first === undefined ? { count } : { first, count };
}

export function hashChainMoreMessage(count: number): string {
  return `${count - 1} more prev_hash chain breaks`;
}
