// V2 check `hash_chain`: sha256 (and sha3-256 when used) accepted by policy; prev_hash always and
// prev_hash_secondary whenever present recomputed from the entries. D7, D3. Errors POLICY_VIOLATION,
// HASH_CHAIN_BROKEN, DUAL_HASH_MISMATCH.
import { prefixedHash } from '../../../hash/index.ts';
import { describe, prop } from '../../json.ts';
import type { V2Context } from '../context.ts';
import { FirstBreak } from './first-break.ts';

const GENESIS = 'GENESIS';

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

export function checkHashChain(ctx: V2Context): void {
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
}
