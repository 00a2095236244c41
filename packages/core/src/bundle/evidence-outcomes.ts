// How a request's evidence is worded in a verdict, in one place for every reader (brief "readers3", P453, P454):
// core's `verify(request)`, POST /verify and /verify/batch, `proto verify` (FILE and --batch). Each of them used to
// word a receipt's result, and the evidence of a bundle that is not verified, its own way, so one request read
// differently depending on who read it.
import type { AnchorCheck } from '../anchor/check-outcome.ts';
import { errorCode } from '../errors.ts';
import type { ProtocolProfile } from '../profile.ts';
import type { ExternalOutcome } from './verdict.ts';

/** Every word about a receipt starts with its member's name, so a reader of `errors` knows what it is about. */
const RECEIPT = 'anchor_receipt';

/**
 * The `anchor` outcome of a receipt check, as every reader words it (P453): a pass with who cosigned the log's
 * checkpoint (P60), a skip as `anchor_receipt not checked [CODE, retryable]: why`, a failure as `anchor_receipt:
 * why`; the check's other warnings follow, each `anchor_receipt: …`.
 */
export function anchorOutcome(result: AnchorCheck, profile: ProtocolProfile): ExternalOutcome {
  const extra = result.warnings.filter((w) => w !== result.message).map((w) => `${RECEIPT}: ${w}`);
  if (result.status === 'pass') {
    const witnessed =
      result.witnesses === undefined
        ? []
        : [
            `${RECEIPT}: log checkpoint cosigned by ${result.witnesses.cosigned.join(', ')} (witness quorum ${result.witnesses.quorum})`,
          ];
    return { check: 'anchor', status: 'pass', warnings: [...witnessed, ...extra] };
  }
  const code = errorCode(result.code, profile);
  if (result.status === 'skipped') {
    // Not a failure: the receipt could not be checked now. The code (and whether to retry) rides along.
    const tag = ` [${code}${result.retryable ? ', retryable' : ''}]`;
    return {
      check: 'anchor',
      status: 'skipped',
      warnings: [`${RECEIPT} not checked${tag}: ${result.message}`, ...extra],
    };
  }
  return {
    check: 'anchor',
    status: 'fail',
    error: { code, check: 'anchor', message: `${RECEIPT}: ${result.message}`, retryable: result.retryable },
    warnings: extra,
  };
}

/** Why nothing is looked up for a bundle that is not verified (issue 12 item 6: it costs the operator no I/O). */
export const NOT_VERIFIED_REASON = 'the bundle is not verified, so no external look-up is made';

/**
 * The evidence a request carries for a bundle that is not verified: each piece `skipped`, said to be unchecked and
 * why (P454: the service said so, core said nothing, `proto verify` checked the receipt anyway, `--batch` blamed
 * itself). `revocation` is for a reader that would have looked the agent up.
 */
export function unverifiedEvidenceOutcomes(evidence: {
  readonly revocation?: boolean;
  readonly receipt?: boolean;
  readonly attestation?: boolean;
}): ExternalOutcome[] {
  const outcomes: ExternalOutcome[] = [];
  if (evidence.revocation === true)
    outcomes.push({
      check: 'revocation',
      status: 'skipped',
      warnings: [`revocation not checked: ${NOT_VERIFIED_REASON}`],
    });
  if (evidence.receipt === true)
    outcomes.push({
      check: 'anchor',
      status: 'skipped',
      warnings: [`${RECEIPT} not checked: ${NOT_VERIFIED_REASON}`],
    });
  if (evidence.attestation === true)
    outcomes.push({
      check: 'attestation',
      status: 'skipped',
      warnings: [`jurisdiction_attestation not checked: ${NOT_VERIFIED_REASON}`],
    });
  return outcomes;
}
