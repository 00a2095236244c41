// A request's `anchor_receipt` judged with what is in hand (P380, P385, P386): the receipt's shape, its hashes against
// the ones this verifier computed from the bundle, its Merkle paths, a receipt reporting `failed` (core's
// `prepareReceiptCheck`). D19: verification "recomputes the hash, checks the path, and reads the chain"; the first two
// need no source, so a receipt they contradict fails wherever it is read: core's `verify`, POST /verify with no anchor
// sources, `proto verify` (FILE and --batch). One they do not contradict only a chain or log read can pass: skipped.
import { prepareReceiptCheck } from '../anchor/check.ts';
import { receiptNamesSecondary } from '../anchor/receipt.ts';
import type { ProtocolProfile } from '../profile.ts';
import { anchorOutcome } from './evidence-outcomes.ts';
import type { AnalyzeOptions, BundleAnalysis } from './types.ts';
import type { ExternalOutcome } from './verdict.ts';

/** The hashes an analysis must compute for `receipt` to be checked (P123, P74), as the service asks for them. */
export const receiptAnalyzeOptions = (receipt: unknown): AnalyzeOptions => ({
  bundleHash: true,
  bundleHashSecondary: receiptNamesSecondary(receipt),
});

/**
 * The `anchor` outcome of `receipt` for the bundle `analysis` read, with no chain or log: `fail` (with its code and
 * message) when what is in hand contradicts it, else `skipped` with the warning `unchecked`.
 */
export function receiptOutcomeInHand(
  receipt: unknown,
  analysis: BundleAnalysis,
  profile: ProtocolProfile,
  unchecked: string,
): ExternalOutcome {
  const skipped: ExternalOutcome = { check: 'anchor', status: 'skipped', warnings: [unchecked] };
  if (analysis.bundleHash === undefined) return skipped;
  const secondary = receiptNamesSecondary(receipt) ? analysis.bundleHashSecondary : undefined;
  const prepared = prepareReceiptCheck(receipt, analysis.bundleHash, secondary, false);
  if (prepared.ok || prepared.error.status !== 'fail') return skipped;
  // P453: worded `anchor_receipt: …`, as the service and `proto verify` word the same failure.
  return anchorOutcome(prepared.error, profile);
}
