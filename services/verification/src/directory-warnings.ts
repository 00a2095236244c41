// What the key directory's warnings on a /verify answer share (P282's retired keys, P501/P503's foreign parties;
// P555): which answers may carry one, and how one is added. Loaded by the verification threads (through
// retired-keys.ts), so it imports nothing at run time: no @proto/core index, no CBOR decoder (P125,
// worker-modules.test.ts).
import type { VerifyResponse } from '@proto/core/verifier';

/** Named one each, the rest counted: the kids of a party or a bundle are few; the cap is for the answer's sake. */
export const NAMED_IN_A_WARNING = 10;

/** Whether the key directory may add a warning to this answer: a verified V2 one (D12: V1 answers have none). */
export function directoryWarningsApply(response: Pick<VerifyResponse, 'verified' | 'version'>): boolean {
  return response.verified && response.version === '2.0';
}

/** `response` with `warnings` after its own. */
export function withWarnings(response: VerifyResponse, warnings: readonly string[]): VerifyResponse {
  return { ...response, warnings: [...(response.warnings ?? []), ...warnings] };
}
