// hash_chain and intent_hash: both audit chains, computed from the entries, never read from them.
// DECISIONS D7 (prev_hash always; prev_hash_secondary, intent_hash(_secondary) whenever present), D3.
import { hexDigest, prefixedHash } from '../../hash/index.ts';
import { describe, prop } from '../json.ts';
import type { V2Context } from './context.ts';

const GENESIS = 'GENESIS';

/** Reports the first failure of a kind with the count of the others (O(n) messages at most once). */
class FirstBreak {
  private first: string | undefined;
  private count = 0;
  note(message: string): void {
    if (this.first === undefined) this.first = message;
    this.count++;
  }
  message(): string | undefined {
    if (this.first === undefined) return undefined;
    return this.count > 1 ? `${this.first} (and ${this.count - 1} more)` : this.first;
  }
}

/** Whether the bundle carries any SHA3-256 value (it then needs sha3-256 in the hash policy). */
export function usesSecondaryHashes(ctx: V2Context): boolean {
  return (
    prop(ctx.parts.manifest, 'audit_merkle_root_secondary') !== undefined ||
    ctx.entries.some(
      (e) =>
        (prop(e.value, 'prev_hash_secondary') !== undefined &&
          prop(e.value, 'prev_hash_secondary') !== GENESIS) ||
        prop(e.value, 'intent_hash_secondary') !== undefined,
    ) ||
    ctx.checkpoints.some((c) => c.shape === 'spec')
  );
}

export function checkHashChains(ctx: V2Context): void {
  const { ledger } = ctx;
  const accepted = ctx.runtime.settings.policy.accepted_algorithms.hash;
  if (!accepted.includes('sha256')) {
    ledger.fail(
      'hash_chain',
      'POLICY_VIOLATION',
      'Hash algorithm sha256 (every V2 chain and root) not accepted by verifier policy',
    );
  }
  if (!accepted.includes('sha3-256') && usesSecondaryHashes(ctx)) {
    ledger.fail(
      'hash_chain',
      'POLICY_VIOLATION',
      'Hash algorithm sha3-256 (secondary chain) not accepted by verifier policy',
    );
  }

  const primary = new FirstBreak();
  const secondary = new FirstBreak();
  const needSha3 = ctx.entries.some((e) => prop(e.value, 'prev_hash_secondary') !== undefined);
  const sha3 = needSha3 ? ctx.sha3Leaves() : [];
  ctx.entries.forEach((entry, i) => {
    const prev = prop(entry.value, 'prev_hash');
    const expected = i === 0 ? GENESIS : prefixedHash('sha256', ctx.entries[i - 1]!.sha256);
    if (prev !== expected)
      primary.note(`prev_hash chain break at entry[${i}]: expected ${expected}, got ${describe(prev)}`);
    const prevSecondary = prop(entry.value, 'prev_hash_secondary');
    if (prevSecondary !== undefined) {
      const expectedSecondary = i === 0 ? GENESIS : prefixedHash('sha3-256', sha3[i - 1]!);
      if (prevSecondary !== expectedSecondary) {
        secondary.note(
          `prev_hash_secondary chain break at entry[${i}]: expected ${expectedSecondary}, got ${describe(prevSecondary)}`,
        );
      }
    }
  });
  const p = primary.message();
  if (p !== undefined) ledger.fail('hash_chain', 'HASH_CHAIN_BROKEN', p);
  const s = secondary.message();
  if (s !== undefined) ledger.fail('hash_chain', 'DUAL_HASH_MISMATCH', s);
  ledger.settle('hash_chain');

  const intent = ctx.artifacts.intent;
  const intentHash = intent.hash;
  let intentHashSecondary: string | undefined;
  const wrong = new FirstBreak();
  const wrongSecondary = new FirstBreak();
  ctx.entries.forEach((entry, i) => {
    const got = prop(entry.value, 'intent_hash');
    if (got !== intentHash)
      wrong.note(`intent_hash (entry ${i}): expected ${intentHash}, got ${describe(got)}`);
    const gotSecondary = prop(entry.value, 'intent_hash_secondary');
    if (gotSecondary !== undefined) {
      intentHashSecondary ??= prefixedHash('sha3-256', hexDigest('sha3-256', intent.bytes));
      if (gotSecondary !== intentHashSecondary) {
        wrongSecondary.note(
          `intent_hash_secondary (entry ${i}): expected ${intentHashSecondary}, got ${describe(gotSecondary)}`,
        );
      }
    }
  });
  for (const b of [wrong, wrongSecondary]) {
    const m = b.message();
    if (m !== undefined) ledger.fail('intent_hash', 'INTENT_HASH_MISMATCH', m);
  }
  ledger.settle('intent_hash');
}
