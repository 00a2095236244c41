// Worker thread of `proto verify --batch`: one verifier built once, then one file per message.
// Issue 14 item 3 (the same engine as POST /verify, locally on all cores).
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { createVerifier, type VerifierOptions } from '@proto/core';

export interface BatchWorkerSetup {
  readonly options: Omit<VerifierOptions, 'clock'>;
  /** ISO time for --at (a clock cannot cross threads). */
  readonly at?: string;
  readonly key?: string;
}

const setup = workerData as BatchWorkerSetup;
const at = setup.at === undefined ? undefined : new Date(setup.at);
const built = createVerifier({ ...setup.options, ...(at === undefined ? {} : { clock: () => at }) });
if (!built.ok) throw new Error(built.error.message);
const verifier = built.value;

function lineFor(file: string): { line: string; verified: boolean } {
  let input: unknown;
  try {
    input = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const message = `${file}: ${(error as Error).message}`;
    return { line: JSON.stringify({ file, verified: false, errors: [message] }), verified: false };
  }
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    const message = `${file}: expected a signed bundle or a /verify request object`;
    return { line: JSON.stringify({ file, verified: false, errors: [message] }), verified: false };
  }
  const record = input as Record<string, unknown>;
  const request: Record<string, unknown> =
    'signed_bundle' in record ? { ...record } : { signed_bundle: record };
  if (setup.key !== undefined) request['public_key_b64'] = setup.key;
  const response = verifier.verify(request);
  return { line: JSON.stringify({ file, ...response }), verified: response.verified };
}

parentPort?.on('message', (task: { index: number; file: string }) => {
  parentPort?.postMessage({ index: task.index, ...lineFor(task.file) });
});
