// What every V2 signature check shares: the composite environment and how an outcome is filed
// (classical_sig/pq_sig, artifact_sigs, checkpoints). DECISIONS D1, D8, D9.
import type { CheckName } from '../types.ts';
import { reportKidMismatch } from './checks/key-validity.ts';
import type { CompositeEnvironment, CompositeOutcome } from './composite.ts';
import type { V2Context } from './context.ts';
import type { KeyRecord } from './keys.ts';

export function compositeEnvironment(ctx: V2Context): CompositeEnvironment {
  const settings = ctx.runtime.settings;
  return {
    backend: ctx.runtime.backend,
    keys: ctx.keys,
    acceptedSigning: settings.policy.accepted_algorithms.signing,
    advisoryRejected: settings.advisoryRejectedAlgs,
    requireCompositeBinding: settings.requireCompositeBinding,
  };
}

/** Files an outcome's issues, warnings, kid mismatches and used keys into the context. */
export function record(
  ctx: V2Context,
  outcome: CompositeOutcome,
  checkOf: (half: 'classical' | 'pq') => CheckName,
): void {
  // Indexed: `for…of` left four array iterators on the heap per signature (P133).
  const { issues, warnings, usedKeys, kidMismatches } = outcome;
  for (let i = 0; i < issues.length; i++) {
    const issue = issues[i] as CompositeOutcome['issues'][number];
    ctx.ledger.fail(checkOf(issue.half), issue.code, issue.message);
  }
  for (let i = 0; i < warnings.length; i++) ctx.ledger.warn(warnings[i] as string);
  for (let i = 0; i < usedKeys.length; i++) ctx.usedKeys.add(usedKeys[i] as KeyRecord);
  for (let i = 0; i < kidMismatches.length; i++) reportKidMismatch(ctx, (kidMismatches[i] as KeyRecord).kid);
}
