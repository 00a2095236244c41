// What every V2 signature check shares: the composite environment and how an outcome is filed
// (classical_sig/pq_sig, artifact_sigs, checkpoints). DECISIONS D1, D8, D9.
import type { CheckName } from '../types.ts';
import { reportKidMismatch } from './checks/key-validity.ts';
import type { CompositeEnvironment, CompositeOutcome } from './composite.ts';
import type { V2Context } from './context.ts';

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
  for (const issue of outcome.issues) ctx.ledger.fail(checkOf(issue.half), issue.code, issue.message);
  for (const warning of outcome.warnings) ctx.ledger.warn(warning);
  for (const key of outcome.usedKeys) ctx.usedKeys.add(key);
  for (const key of outcome.kidMismatches) reportKidMismatch(ctx, key.kid);
}
