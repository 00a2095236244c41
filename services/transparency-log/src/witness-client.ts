// One add-checkpoint exchange with one witness (c2sp.org/tlog-witness): post `old <size>`, the consistency proof
// and the signed checkpoint; read back its cosignature, a 409's known size, or why it refused. Nothing it answers
// is trusted here: the caller verifies the cosignature. Issue 18 item 2, the log side; docs/project-decisions.md P57.
import { formatAddCheckpointRequest } from '@proto/core';
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

export interface SubmitCheckpoint {
  readonly oldSize: number;
  readonly proof: readonly Uint8Array[];
  readonly note: string;
}

async function readLimited(response: Response): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > MAX_WITNESS_ANSWER_BYTES) throw new Error('witness answer is too large');
  if (response.body === null) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body) {
    total += chunk.byteLength;
    if (total > MAX_WITNESS_ANSWER_BYTES) throw new Error('witness answer is too large');
    chunks.push(chunk);
  }
  return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
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
  const signal = AbortSignal.timeout(options.timeoutMs);
  let response: Response;
  let text: string;
  try {
    response = await options.fetch(`${witness.url}/add-checkpoint`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      body,
      signal,
      redirect: 'error',
    });
    text = await readLimited(response);
  } catch (error) {
    if (signal.aborted) {
      throw new WitnessUnavailableError('timeout', `witness ${witness.id} did not answer in time`, {
        cause: error,
      });
    }
    throw new WitnessUnavailableError('unavailable', `witness ${witness.id} could not be reached`, {
      cause: error,
    });
  }
  if (response.status === 200) return { kind: 'cosigned', body: text };
  if (response.status === 409) {
    // The body is the size the witness last cosigned for this log, in decimal (text/x.tlog.size).
    const size = text.trim();
    if (/^(0|[1-9][0-9]{0,15})$/.test(size) && Number.isSafeInteger(Number(size))) {
      return { kind: 'conflict', knownSize: Number(size) };
    }
    return { kind: 'refused', status: 409, reason: 'conflict without a readable size' };
  }
  if (response.status >= 500) {
    throw new WitnessUnavailableError('unavailable', `witness ${witness.id} answered ${response.status}`);
  }
  // 4xx: the witness refuses this checkpoint (bad signature, unknown log, inconsistent proof…).
  return { kind: 'refused', status: response.status, reason: text.slice(0, 200).trim() };
}
