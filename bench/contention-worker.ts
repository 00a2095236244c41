// One of the two threads of bench/contention-replay.ts (P127). Told a task, it gets ready (one untimed round),
// waits for the shared start signal, then either replays its bundle's verify() calls or spins on JSON work.
// A measured thread times whole rounds of the calls in its own CPU time for the window, says so, and keeps
// working unmeasured until every measured thread of the side is done, so none is ever timed alone.
import { parentPort, workerData } from 'node:worker_threads';
import { selectCryptoBackend } from '@proto/core/verifier';
import {
  type BackendPreference,
  DONE,
  GO,
  type ThreadReading,
  type ThreadTask,
} from './contention-signals.ts';
import type { SignatureCall } from './engine-cases.ts';

const { calls, preference, signals } = workerData as {
  calls: readonly SignatureCall[];
  preference: BackendPreference;
  signals: SharedArrayBuffer;
};
const state = new Int32Array(signals);
const backend = selectCryptoBackend(preference);
const port = parentPort;
if (port === null) throw new Error('contention-worker.ts runs as a worker thread');

function replayOnce(): void {
  for (const c of calls) {
    if (!backend.verify(c.alg, c.publicKey, c.message, c.signature)) throw new Error('replay failed');
  }
}

/** Not crypto: the kind of work the service does around its signatures (parsing and writing JSON). */
const document = Array.from({ length: 200 }, (_, i) => ({
  index: i,
  name: `entry-${i}`,
  digest: 'ab'.repeat(32),
  tags: ['pass', 'active', 'skipped'],
}));
function spinOnce(): void {
  if ((JSON.parse(JSON.stringify(document)) as unknown[]).length !== document.length)
    throw new Error('spin failed');
}

const threadCpuMs = () => {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
};

port.on('message', (task: ThreadTask) => {
  const work = task.role === 'replay' ? replayOnce : spinOnce;
  work();
  port.postMessage('ready');
  for (;;) {
    const go = Atomics.load(state, GO);
    if (go >= task.generation) break;
    Atomics.wait(state, GO, go);
  }
  let reading: ThreadReading = { cpuMs: 0, wallMs: 0, rounds: 0 };
  if (task.measured) {
    const cpu0 = threadCpuMs();
    const t0 = performance.now();
    let rounds = 0;
    do {
      work();
      rounds++;
    } while (performance.now() - t0 < task.windowMs);
    reading = { cpuMs: threadCpuMs() - cpu0, wallMs: performance.now() - t0, rounds };
    Atomics.add(state, DONE, 1);
  }
  while (Atomics.load(state, DONE) < task.measuredThreads) work();
  port.postMessage(reading);
});
