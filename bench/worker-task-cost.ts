// What a verification thread spends on one /verify task beyond the engine, without HTTP (P124): the service's
// own pool (services/verification pool.ts and worker.ts, one thread) is sent the task the route sends for a
// JSON body with the cache off (body transferred, answer written in the thread, key bindings asked for),
// one task at a time, and its thread's CPU per task (the pool's own counter, P86) stands next to the same
// bundle's engine work in this thread (parse + verify, real signatures), both in every round.
//
//   flock /work/notes/bench.lock pnpm exec node bench/worker-task-cost.ts
//
// WORKER_TASK_CASES: `elevated`, `maximum` or both (default); WORKER_TASK_ROUNDS (default 3).
import { PerformanceObserver } from 'node:perf_hooks';
import { type BuildOptions, buildSignedBundle, createVerifier, selectCryptoBackend } from '@proto/core';
import { loadVerificationConfig, portableVerifierOptions, VerifyPool } from '@proto/verification';
import { serviceTaskOf } from './floor-verifier-task.ts';

const ROUNDS = Number(process.env['WORKER_TASK_ROUNDS'] ?? 3);
/** Scales every case's task count (a quick check of the script: 0.05). */
const SCALE = Number(process.env['WORKER_TASK_SCALE'] ?? 1);
const ALL_CASES: readonly { name: string; options: BuildOptions; runs: number }[] = [
  { name: 'elevated-10', options: { tier: 'elevated', entries: 10 }, runs: 400 },
  { name: 'maximum-60', options: { tier: 'maximum', entries: 60 }, runs: 80 },
];
const CASES = ALL_CASES.filter((c) =>
  (process.env['WORKER_TASK_CASES'] ?? 'elevated,maximum').split(',').some((w) => c.name.startsWith(w)),
);

const config = loadVerificationConfig({ ...process.env, VERIFY_WORKERS: '1' });
const portable = portableVerifierOptions(config);
const backend = selectCryptoBackend(portable.backend);
const built = createVerifier({ ...portable.options, backend });
if (!built.ok) throw new Error(built.error.message);
const verifier = built.value;

/** GC pauses on this process's main isolate (the pool thread's are its own). */
let mainGcMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) mainGcMs += e.duration;
}).observe({ entryTypes: ['gc'] });

const threadMs = () => {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
};
const processMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function poolRound(pool: VerifyPool, bytes: Uint8Array, runs: number) {
  const w0 = pool.workerCpuSeconds;
  const p0 = processMs();
  const m0 = threadMs();
  for (let i = 0; i < runs; i++) {
    const body = bytes.slice();
    const task = serviceTaskOf(body);
    const result = await pool.run(task, [body.buffer as ArrayBuffer]);
    if (result.kind !== 'answered' || !result.answer.summary.verified) throw new Error('not verified');
  }
  const worker = ((pool.workerCpuSeconds - w0) * 1000) / runs;
  const main = (threadMs() - m0) / runs;
  const all = (processMs() - p0) / runs;
  return { worker, main, other: all - worker - main };
}

async function engineRound(text: string, runs: number) {
  const p0 = processMs();
  const m0 = threadMs();
  const g0 = mainGcMs;
  for (let i = 0; i < runs; i++) {
    if (!verifier.verify(JSON.parse(text)).verified) throw new Error('not verified');
  }
  const thread = (threadMs() - m0) / runs;
  const other = (processMs() - p0) / runs - thread;
  // GC entries reach the observer on a later turn of the event loop.
  await new Promise((resolve) => setTimeout(resolve, 20));
  return { thread, other, gc: (mainGcMs - g0) / runs };
}

for (const { runs: fullRuns, ...c } of CASES) {
  const runs = Math.max(1, Math.round(fullRuns * SCALE));
  const text = JSON.stringify({ signed_bundle: buildSignedBundle({ ...c.options, backend }).signed_bundle });
  const bytes = new TextEncoder().encode(text);
  const pool = new VerifyPool({
    threads: 1,
    minThreads: 1,
    idleTimeoutMs: 60_000,
    maxQueue: 16,
    verifier: portable,
  });
  // Warm both sides up: the JIT tiers up over hundreds of verifications (P112).
  await poolRound(pool, bytes, runs);
  await engineRound(text, runs);
  const rows: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const p = await poolRound(pool, bytes, runs);
    const e = await engineRound(text, runs);
    rows.push(
      `  round ${round + 1}: pool thread ${p.worker.toFixed(3)}  main ${p.main.toFixed(3)}  helpers ${p.other.toFixed(3)}` +
        ` | engine thread ${e.thread.toFixed(3)}  helpers ${e.other.toFixed(3)}  gc pauses ${e.gc.toFixed(3)}` +
        ` | thread − engine ${(p.worker - e.thread).toFixed(3)} ms`,
    );
  }
  await pool.close();
  console.log(`${c.name} JSON, ${text.length} bytes, ms per bundle (CPU):`);
  for (const r of rows) console.log(r);
}
