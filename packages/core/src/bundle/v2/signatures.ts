// classical_sig / pq_sig (bundle signature over jcs(manifest)) and artifact_sigs (the four artifacts).
// DECISIONS D1 (the profile's contexts), D8 (artifact signatures are checked, keys by kid), D9 (modes).
import { contextString } from '../../profile.ts';
import type { CheckName } from '../types.ts';
import { reportKidMismatch } from './checks/key-validity.ts';
import { type CompositeEnvironment, type CompositeOutcome, evaluateComposite } from './composite.ts';
import { ARTIFACTS, type V2Context } from './context.ts';

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

/** The bundle's composite signature over jcs(manifest) under `<prefix>Bundle` (PROTOCOL §6.3). */
export function checkBundleSignature(ctx: V2Context): void {
  const outcome = evaluateComposite(compositeEnvironment(ctx), {
    label: 'Bundle signature',
    signature: ctx.parts.signature['composite_sig'],
    context: contextString(ctx.runtime.profile, 'Bundle'),
    payload: ctx.manifestBytes,
    mode: ctx.tier.mode,
  });
  record(ctx, outcome, (half) => (half === 'classical' ? 'classical_sig' : 'pq_sig'));
  ctx.ledger.set('classical_sig', outcome.classical);
  ctx.ledger.set('pq_sig', outcome.pq);
}

/** Each artifact's composite signature over jcs(payload) under its own context (D8; upstream skips it). */
export function checkArtifactSignatures(ctx: V2Context): void {
  const env = compositeEnvironment(ctx);
  for (const spec of ARTIFACTS) {
    const artifact = ctx.artifacts[spec.field];
    const outcome = evaluateComposite(env, {
      label: spec.field,
      signature: artifact.envelope['composite_sig'],
      context: contextString(ctx.runtime.profile, spec.context),
      payload: artifact.bytes,
      mode: ctx.tier.mode,
    });
    record(ctx, outcome, () => 'artifact_sigs');
  }
  ctx.ledger.settle('artifact_sigs');
}
