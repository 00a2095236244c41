// One thread of the plain worker_threads pool (thread-pool.ts, P620): worker.ts's task function behind a bare
// message loop. A task arrives as the message, its result goes back with the buffers worker.ts marked to move
// (piscina's movable, unwrapped here as piscina's own thread unwraps it); a task that throws goes back as its error.
import { parentPort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import verifyTask, { type VerifyGroupTask, type VerifyTask } from './worker.ts';

/** What a thread posts: ready once worker.ts has loaded, then one reply a task. */
export type PoolThreadMessage =
  | { readonly ready: true }
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: unknown };

if (parentPort === null) throw new Error('pool-thread.ts runs as a worker thread');
const port = parentPort;

port.on('message', (task: VerifyTask | VerifyGroupTask) => {
  let result: unknown;
  try {
    result = verifyTask(task);
  } catch (error) {
    port.postMessage({ ok: false, error } satisfies PoolThreadMessage);
    return;
  }
  const movable = result as Record<symbol, unknown>;
  const transfer = movable[Piscina.transferableSymbol] as ArrayBuffer[] | undefined;
  if (transfer === undefined) port.postMessage({ ok: true, value: result } satisfies PoolThreadMessage);
  else
    port.postMessage({ ok: true, value: movable[Piscina.valueSymbol] } satisfies PoolThreadMessage, transfer);
});
port.postMessage({ ready: true } satisfies PoolThreadMessage);
