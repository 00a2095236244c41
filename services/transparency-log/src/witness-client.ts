// One add-checkpoint exchange with one witness (c2sp.org/tlog-witness): post `old <size>`, the consistency proof
// and the signed checkpoint; read back its cosignature, a 409's known size, or why it refused. Nothing it answers
// is trusted here: the caller verifies the cosignature. Issue 18 item 2, the log side; docs/project-decisions.md P57.
import { formatAddCheckpointRequest } from '@proto/core';
import { type BoundedFetchFault, fetchBounded } from '@proto/service-kit';
import type { WitnessEndpoint } from './witness-config.ts';

/** A cosignature answer is a few lines; anything longer is not a witness speaking. */
export const MAX_WITNESS_ANSWER_BYTES = 64 * 1024;

export type WitnessAnswer =
  | { readonly kind: 'cosigned'; readonly body: string }
  | { readonly kind: 'conflict'; readonly knownSize: number }
  | { readonly kind: 'refused'; readonly status: number; readonly reason: string };

/** The witness could not be asked: down, too slow, or its answer was unreadable. */
export class WitnessUnavailableError extends Error {
  readonly outcome: 'timeout' | 'unavailable';
  constructor(outcome: 'timeout' | 'unavailable', message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'WitnessUnavailableError';
    this.outcome = outcome;
  }
}

function unavailable(witness: WitnessEndpoint, fault: BoundedFetchFault): WitnessUnavailableError {
  switch (fault.kind) {
    case 'timeout':
      return new WitnessUnavailableError('timeout', `witness ${witness.id} did not answer in time`, {
        cause: fault.error,
      });
    case 'redirect':
      return new WitnessUnavailableError(
        'unavailable',
        `witness ${witness.id} answered HTTP ${fault.status}: redirects are not followed (configure its final URL)`,
      );
    case 'too-large':
      return new WitnessUnavailableError(
        'unavailable',
        `witness ${witness.id} answered more than ${MAX_WITNESS_ANSWER_BYTES} bytes`,
        { cause: fault.error },
      );
    case 'unreachable':
      return new WitnessUnavailableError('unavailable', `witness ${witness.id} could not be reached`, {
        cause: fault.error,
      });
  }
}

export interface SubmitCheckpoint {
  readonly oldSize: number;
  readonly proof: readonly Uint8Array[];
  readonly note: string;
}

export async function submitToWitness(
  witness: WitnessEndpoint,
  request: SubmitCheckpoint,
  options: { readonly timeoutMs: number; readonly fetch: typeof fetch },
): Promise<WitnessAnswer> {
  const body = formatAddCheckpointRequest({
    oldSize: request.oldSize,
    proof: request.proof,
    checkpoint: request.note,
  });
  // P183: the one bounded exchange every upstream call uses (timeout over the whole exchange, body included; a
  // redirect refused, as following it would carry the checkpoint to a host the operator never named; the body cut
  // at the cap, a declared length past it refused before reading). Each fault keeps the outcome the log counts.
  const answer = await fetchBounded(`${witness.url}/add-checkpoint`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain; charset=utf-8' },
    body,
    timeoutMs: options.timeoutMs,
    maxBytes: MAX_WITNESS_ANSWER_BYTES,
    fetch: options.fetch,
    failWith: (fault) => unavailable(witness, fault),
  });
  let text: string;
  try {
    // A witness speaks UTF-8 text; bytes that are not are an unreadable answer, not a refusal to judge.
    text = new TextDecoder('utf-8', { fatal: true }).decode(answer.bytes);
  } catch (error) {
    throw new WitnessUnavailableError(
      'unavailable',
      `witness ${witness.id} answered bytes that are not UTF-8`,
      {
        cause: error,
      },
    );
  }
  if (answer.status === 200) return { kind: 'cosigned', body: text };
  if (answer.status === 409) {
    // The body is the size the witness last cosigned for this log, in decimal (text/x.tlog.size).
    const size = text.trim();
    if (/^(0|[1-9][0-9]{0,15})$/.test(size) && Number.isSafeInteger(Number(size))) {
      return { kind: 'conflict', knownSize: Number(size) };
    }
    return { kind: 'refused', status: 409, reason: 'conflict without a readable size' };
  }
  if (answer.status >= 500) {
    throw new WitnessUnavailableError('unavailable', `witness ${witness.id} answered ${answer.status}`);
  }
  // 4xx: the witness refuses this checkpoint (bad signature, unknown log, inconsistent proof…).
  return { kind: 'refused', status: answer.status, reason: text.slice(0, 200).trim() };
}
