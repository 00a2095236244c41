// V2 check `artifact_sigs`: each of the four artifacts' composite signature over jcs(payload) under its
// own context. D8 (checked, keys by kid; upstream skips it). Errors: see evaluateComposite (composite.ts).
import { contextString } from '../../../profile.ts';
import { evaluateComposite } from '../composite.ts';
import { ARTIFACTS, type V2Context } from '../context.ts';
import { compositeEnvironment, record } from '../signatures.ts';

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
      framed: artifact.framed,
      mode: ctx.tier.mode,
    });
    record(ctx, outcome, () => 'artifact_sigs');
  }
  ctx.ledger.settle('artifact_sigs');
}
