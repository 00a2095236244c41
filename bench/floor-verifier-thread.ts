// One verifying thread of the floor verifier's `threads` arrangement (bench/floor-verifier-server.ts, P132):
// a body's bytes arrive transferred, the verdict goes back; nothing else crosses. With FLOOR_VERIFIER_WORK=service
// (P136) the thread runs the service's own worker task instead and posts back its result, as piscina would; with
// FLOOR_VERIFIER_WORK=engine, core's verifier alone (strict UTF-8, JSON.parse, verify()), built from the same
// options as the service's threads build theirs: the engine without the service's task around it.
import { parentPort, workerData } from 'node:worker_threads';
import type { VerifyTaskResult } from '@proto/verification/worker';
import type { FloorPoolSettings } from './floor-verifier-pool.ts';
import { serviceTaskOf } from './floor-verifier-task.ts';
import { type FloorVerdict, floorVerify } from './floor-verifier-work.ts';

/** What a thread posts back for a body: the floor's verdict, or the service's task result. */
export type FloorThreadReply =
  | { readonly id: number; readonly verdict: FloorVerdict }
  | { readonly id: number; readonly result: VerifyTaskResult };

if (parentPort === null) throw new Error('floor-verifier-thread.ts runs as a worker thread');
const port = parentPort;
if (process.env['FLOOR_VERIFIER_WORK'] === 'service') {
  // Loaded only here: worker.ts builds its verifier from workerData as it loads.
  const [{ default: verifyTask }, { Piscina }] = await Promise.all([
    import('@proto/verification/worker'),
    import('piscina'),
  ]);
  port.on('message', ({ id, bytes }: { id: number; bytes: ArrayBuffer }) => {
    const result = verifyTask(serviceTaskOf(new Uint8Array(bytes))) as VerifyTaskResult;
    // A single task's answer comes as piscina's movable (its bytes to transfer, not copy): unwrapped as
    // piscina's own thread unwraps it before posting.
    const movable = result as unknown as Record<symbol, unknown>;
    const transfer = movable[Piscina.transferableSymbol] as ArrayBuffer[] | undefined;
    const value = (transfer === undefined ? result : movable[Piscina.valueSymbol]) as VerifyTaskResult;
    port.postMessage({ id, result: value } satisfies FloorThreadReply, transfer ?? []);
  });
} else if (process.env['FLOOR_VERIFIER_WORK'] === 'engine') {
  const { createVerifier, selectCryptoBackend } = await import('@proto/core/verifier');
  const setup = workerData as FloorPoolSettings['verifier'];
  const built = createVerifier({ ...setup.options, backend: selectCryptoBackend(setup.backend) });
  if (!built.ok) throw new Error(built.error.message);
  const verifier = built.value;
  const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
  const engineVerdict = (bytes: ArrayBuffer): FloorVerdict => {
    let request: unknown;
    try {
      request = JSON.parse(strictUtf8.decode(bytes));
    } catch (error) {
      return { status: 400, code: 'FLOOR_BAD_REQUEST', message: (error as Error).message };
    }
    const response = verifier.verify(request as Record<string, unknown>);
    if (response.verified) return { status: 200 };
    const codes = (response.error_details ?? []).map((d) => d.code);
    return { status: 422, code: 'FLOOR_NOT_VERIFIED', message: codes.join(',') };
  };
  port.on('message', ({ id, bytes }: { id: number; bytes: ArrayBuffer }) => {
    port.postMessage({ id, verdict: engineVerdict(bytes) } satisfies FloorThreadReply);
  });
} else {
  port.on('message', ({ id, bytes }: { id: number; bytes: ArrayBuffer }) => {
    port.postMessage({ id, verdict: floorVerify(new Uint8Array(bytes)) } satisfies FloorThreadReply);
  });
}
