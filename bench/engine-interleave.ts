// Does the engine pay for running its JavaScript between signature verifications (P138, issue 14)? One
// thread, CPU ms per bundle (this thread's clock), sides alternating every round: the floor's whole work
// (floor-verifier-work.ts: every JS step first, then every signature in one loop), its steps without the
// signatures, the engine as the service
// runs it (core's verify() on the native backend, each signature verified where the pipeline meets it), the
// engine with its signatures answered at once and the same calls replayed on the native backend right after
// the bundle (the same work, JS and signatures apart), the engine with its signatures answered at once and
// not replayed (its own work alone, as engine-ab.ts times it), and those calls alone. With ENGINE_INTERLEAVE_NEIGHBOUR=1
// a second thread runs the floor's work in a loop the whole time, as the pool's other thread does under load.
//
//   flock /work/notes/bench.lock pnpm exec node bench/engine-interleave.ts
//
// ENGINE_INTERLEAVE_CASE (default elevated-10), ENGINE_INTERLEAVE_ROUNDS (default 7), ENGINE_INTERLEAVE_SIDES
// (comma-separated side names, default all; one side alone is what a `node --cpu-prof` run of this wants:
// bench/profile-diff.ts --threads=main then holds its main thread against the pool's threads under load).
import { Worker } from 'node:worker_threads';
import { buildSignedBundle, createVerifier, selectCryptoBackend } from '@proto/core';
import { BACKEND } from './bench-settings.ts';
import { ENGINE_CASES, instantVerifier, recordingBackend, type SignatureCall } from './engine-cases.ts';
import { floorSignatureSet, floorVerify } from './floor-verifier-work.ts';
import { median } from './median.ts';

const CASE = process.env['ENGINE_INTERLEAVE_CASE'] ?? 'elevated-10';
const ROUNDS = Number(process.env['ENGINE_INTERLEAVE_ROUNDS'] ?? 7);
const NEIGHBOUR = process.env['ENGINE_INTERLEAVE_NEIGHBOUR'] === '1';
const engineCase = ENGINE_CASES.find((c) => c.name === CASE);
if (engineCase === undefined) throw new Error(`ENGINE_INTERLEAVE_CASE: unknown ${CASE}`);

const backend = selectCryptoBackend(BACKEND);
const json = JSON.stringify({
  signed_bundle: buildSignedBundle({ ...engineCase.options, backend }).signed_bundle,
});
const body = new TextEncoder().encode(json);

const real = createVerifier({ mode: 'hybrid_preferred', backend });
if (!real.ok) throw new Error(real.error.message);
// Signatures answered at once, the calls kept to replay after the bundle.
const { backend: recording, calls } = recordingBackend({ ...backend, verify: () => true });
const deferred = createVerifier({ mode: 'hybrid_preferred', backend: recording });
if (!deferred.ok) throw new Error(deferred.error.message);
if (!real.value.verify(JSON.parse(json)).verified) throw new Error(`${CASE} does not verify`);
if (floorVerify(body).status !== 200) throw new Error('the floor refuses the bundle');

const instant = instantVerifier(backend);
const replay = (list: readonly SignatureCall[]) => {
  for (const c of list)
    if (!backend.verify(c.alg, c.publicKey, c.message, c.signature)) throw new Error('a signature failed');
};
calls.length = 0;
deferred.value.verify(JSON.parse(json));
const recorded = [...calls];

const sides: Record<string, () => void> = {
  floor: () => {
    if (floorVerify(body).status !== 200) throw new Error('floor refused');
  },
  'floor, signatures skipped': () => {
    if (floorSignatureSet(body).signatures.length !== recorded.length) throw new Error('floor set');
  },
  engine: () => {
    if (!real.value.verify(JSON.parse(new TextDecoder().decode(body))).verified) throw new Error('refused');
  },
  'engine, signatures after': () => {
    calls.length = 0;
    if (!deferred.value.verify(JSON.parse(new TextDecoder().decode(body))).verified)
      throw new Error('refused');
    replay(calls);
  },
  'engine, signatures at once': () => {
    if (!instant.verify(JSON.parse(new TextDecoder().decode(body))).verified) throw new Error('refused');
  },
  'signatures alone': () => replay(recorded),
};

const wanted = process.env['ENGINE_INTERLEAVE_SIDES']?.split(',');
for (const name of Object.keys(sides)) if (wanted !== undefined && !wanted.includes(name)) delete sides[name];
if (Object.keys(sides).length === 0) throw new Error('ENGINE_INTERLEAVE_SIDES: no side of that name');

const threadMs = () => {
  const u = process.threadCpuUsage();
  return (u.user + u.system) / 1000;
};
function cpuPerRun(work: () => void): number {
  let runs = 0;
  const t0 = threadMs();
  const w0 = performance.now();
  do {
    work();
    runs++;
  } while (performance.now() - w0 < 400);
  return (threadMs() - t0) / runs;
}

let neighbour: Worker | undefined;
if (NEIGHBOUR) {
  neighbour = new Worker(
    `const { workerData } = require('node:worker_threads');
     import(workerData.work).then(({ floorVerify }) => {
       const body = new Uint8Array(workerData.body);
       for (;;) floorVerify(body);
     });`,
    { eval: true, workerData: { work: new URL('./floor-verifier-work.ts', import.meta.url).href, body } },
  );
  await new Promise((r) => setTimeout(r, 1000));
}

for (const work of Object.values(sides)) cpuPerRun(work);
const readings = new Map(Object.keys(sides).map((k) => [k, [] as number[]]));
for (let round = 0; round < ROUNDS; round++)
  for (const [name, work] of Object.entries(sides)) readings.get(name)!.push(cpuPerRun(work));
await neighbour?.terminate();

console.log(
  `${CASE}, ${recorded.length} signatures, one thread${NEIGHBOUR ? ' beside a thread running the floor in a loop' : ''}, CPU ms per bundle, median of ${ROUNDS} rounds [min–max]:`,
);
const alone = median(readings.get('signatures alone') ?? [Number.NaN]);
for (const [name, values] of readings) {
  const m = median(values);
  console.log(
    `  ${name.padEnd(26)} ${m.toFixed(3)} [${Math.min(...values).toFixed(3)}–${Math.max(...values).toFixed(3)}]${name === 'signatures alone' ? '' : `  beyond the signatures ${(m - alone).toFixed(3)}`}`,
  );
}
