// V2 checks `classical_sig` and `pq_sig`: the two halves of the bundle's composite signature over
// jcs(manifest) (PROTOCOL §6.3); D1 (contexts), D9 (modes). Errors: see evaluateComposite (composite.ts).
import { contextString } from '../../../profile.ts';
import { type CompositeOutcome, evaluateComposite } from '../composite.ts';
import type { V2Context } from '../context.ts';
import { compositeEnvironment, record } from '../signatures.ts';

/**
 * The bundle's composite signature over jcs(manifest) under `<prefix>Bundle` (PROTOCOL §6.3); its outcome is
 * returned for the pipeline's P490 warning (which keys signed).
 */
export function checkBundleSignature(ctx: V2Context): CompositeOutcome {
  const outcome = evaluateComposite(compositeEnvironment(ctx), {
    label: 'Bundle signature',
    signature: ctx.parts.signature['composite_sig'],
    context: contextString(ctx.runtime.profile, 'Bundle'),
    payload: ctx.manifestBytes,
    framed: ctx.manifestFramed,
    mode: ctx.tier.mode,
  });
  record(ctx, outcome, (half) => (half === 'classical' ? 'classical_sig' : 'pq_sig'));
  ctx.ledger.set('classical_sig', outcome.classical);
  ctx.ledger.set('pq_sig', outcome.pq);
  return outcome;
}
