// In-process engine share (issue 14, engine part): for each builder tier, the raw signature cost and
// createVerifier().verify() measured in the same run, and their ratio. PROFILE_LOOP=tier-name and
// PROFILE_SECONDS=n instead loop one case for `node --cpu-prof`.
// A second line per tier says what the signatures and the engine's own work cost each other (P97).
// Usage: [INTERFERENCE_SLICES=30] pnpm exec node bench/engine-share.ts
import { performance } from 'node:perf_hooks';
import { buildSignedBundle, type CryptoBackend, createVerifier, selectCryptoBackend } from '@proto/core';
import {
  callCounts,
  ENGINE_CASES,
  instantVerifier,
  recordingBackend,
  signatureCosts,
} from './engine-cases.ts';
import { ownCpuMs } from './proc-stats.ts';

const MODE = 'hybrid_preferred' as const;
const ONLY = process.env['ONLY'];
const LOOP = process.env['PROFILE_LOOP'];
const ROUNDS = Number(process.env['ROUNDS'] ?? 5);

const backend = selectCryptoBackend('auto');
const verifier = createVerifier({ mode: MODE, backend });
if (!verifier.ok) throw new Error(verifier.error.message);

for (const { name, options, runs } of ENGINE_CASES) {
  if (ONLY !== undefined && !name.includes(ONLY)) continue;
  if (LOOP !== undefined && name !== LOOP) continue;
  const built = buildSignedBundle({ ...options, backend });
  const json = JSON.stringify({ signed_bundle: built.signed_bundle });
  if (LOOP !== undefined) {
    const until = performance.now() + 1000 * Number(process.env['PROFILE_SECONDS'] ?? 5);
    let n = 0;
    // PROFILE_INSTANT=1: signatures answered at once, so the profile shows only the engine's own work.
    const looped =
      process.env['PROFILE_INSTANT'] === '1'
        ? createVerifier({ mode: MODE, backend: { ...backend, verify: () => true } })
        : verifier;
    if (!looped.ok) throw new Error(looped.error.message);
    const parsed = JSON.parse(json);
    // PROFILE_ITERATIONS=n: exactly n verifications (instruction counts under callgrind).
    const iterations = Number(process.env['PROFILE_ITERATIONS'] ?? Number.POSITIVE_INFINITY);
    while (n < iterations && (iterations !== Number.POSITIVE_INFINITY || performance.now() < until)) {
      looped.value.verify(parsed);
      n++;
    }
    console.log(`${name}: ${n} verifications`);
    continue;
  }
  const recording = recordingBackend(backend);
  const v = createVerifier({ mode: MODE, backend: recording.backend });
  if (!v.ok) throw new Error(v.error.message);
  const verdict = v.value.verify(JSON.parse(json));
  if (!verdict.verified) throw new Error(`${name} does not verify`);
  const counts = callCounts(recording.calls);
  // Interleave engine and raw measurements so machine noise hits both alike.
  let engine = 0;
  let raw = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const costs = signatureCosts(backend, ownCpuMs);
    let r = 0;
    for (const [alg, k] of counts) r += k * (costs.get(alg) ?? 0);
    raw += r;
    verifier.value.verify(JSON.parse(json));
    const t0 = ownCpuMs();
    for (let i = 0; i < runs; i++) verifier.value.verify(JSON.parse(json));
    engine += (ownCpuMs() - t0) / runs;
  }
  // Time inside backend.verify as a fraction of the whole verify() loop, in the same interval:
  // the engine's own overhead, free of run-to-run noise (signatures over the bundle's real messages).
  let inside = 0;
  const timed: CryptoBackend = {
    ...backend,
    verify: (alg, pk, m, sig) => {
      const t = performance.now();
      const result = backend.verify(alg, pk, m, sig);
      inside += performance.now() - t;
      return result;
    },
  };
  const tv = createVerifier({ mode: MODE, backend: timed });
  if (!tv.ok) throw new Error(tv.error.message);
  tv.value.verify(JSON.parse(json));
  inside = 0;
  const parsed = JSON.parse(json);
  const w0 = performance.now();
  for (let i = 0; i < runs * ROUNDS; i++) tv.value.verify(parsed);
  const insideShare = inside / (performance.now() - w0);
  // The engine with a backend whose verify answers at once (after the real one said yes for these
  // very bundles): what remains is the engine's own cost, measured without the signatures' noise.
  const iv = instantVerifier(backend);
  for (let i = 0; i < 5; i++) iv.verify(parsed);
  const o0 = ownCpuMs();
  const overheadRuns = runs * ROUNDS * 2;
  for (let i = 0; i < overheadRuns; i++) iv.verify(parsed);
  const overhead = (ownCpuMs() - o0) / overheadRuns;
  raw /= ROUNDS;
  engine /= ROUNDS;
  console.log(
    `${name.padEnd(14)} raw ${raw.toFixed(2).padStart(7)} ms  engine ${engine.toFixed(2).padStart(7)} ms  share ${((100 * raw) / engine).toFixed(0)} %  in backend.verify ${(100 * insideShare).toFixed(1)} %  overhead ${overhead.toFixed(3)} ms (share at raw+overhead ${((100 * raw) / (raw + overhead)).toFixed(0)} %)`,
  );
  console.log(interference(backend, parsed, runs));
}

/**
 * What the signatures and the engine's own work cost each other (P97). The bundle's own verify()
 * calls are timed one by one inside the engine and replayed back to back with the same per-call
 * timing; the engine's time outside the calls is set against the engine with signatures answered
 * at once. The three alternate in short slices and the medians over slices are printed, because a
 * shared machine's drift is larger than the effect. "first" is the bundle's first two calls (its
 * first Ed25519 and first ML-DSA-65 check), where most of the signatures' extra time falls.
 */
function interference(real: CryptoBackend, parsed: unknown, runs: number): string {
  const { backend: recorder, calls: recorded } = recordingBackend(real);
  const recording = createVerifier({ mode: MODE, backend: recorder });
  if (!recording.ok || !recording.value.verify(parsed).verified) throw new Error('recording failed');
  let inside = 0;
  let first = 0;
  let call = 0;
  const timedCall = (f: () => boolean): boolean => {
    const t = performance.now();
    const result = f();
    const dt = performance.now() - t;
    inside += dt;
    if (call++ % recorded.length < 2) first += dt;
    return result;
  };
  const engine = createVerifier({
    mode: MODE,
    backend: { ...real, verify: (a, p, m, s) => timedCall(() => real.verify(a, p, m, s)) },
  });
  const instant = instantVerifier(real);
  if (!engine.ok) throw new Error('verifier');
  const slice = Math.max(1, Math.round(runs / 10));
  const sides = {
    engine: () => {
      for (let i = 0; i < slice; i++) engine.value.verify(parsed);
    },
    replay: () => {
      for (let i = 0; i < slice; i++)
        for (const c of recorded) timedCall(() => real.verify(c.alg, c.publicKey, c.message, c.signature));
    },
    instant: () => {
      for (let i = 0; i < slice; i++) instant.verify(parsed);
    },
  };
  const samples = {
    inEngine: [] as number[],
    replayed: [] as number[],
    firstExtra: [] as number[],
    outside: [] as number[],
    alone: [] as number[],
  };
  const order = Object.keys(sides) as (keyof typeof sides)[];
  const slices = Number(process.env['INTERFERENCE_SLICES'] ?? 30);
  for (let round = -1; round < slices; round++) {
    const got: Record<string, { inside: number; first: number; wall: number }> = {};
    for (const side of round % 2 === 0 ? order : [...order].reverse()) {
      inside = 0;
      first = 0;
      call = 0;
      const t0 = performance.now();
      sides[side]();
      got[side] = { inside: inside / slice, first: first / slice, wall: (performance.now() - t0) / slice };
    }
    if (round < 0) continue; // warm-up
    const {
      engine: e,
      replay: r,
      instant: n,
    } = got as Record<keyof typeof sides, { inside: number; first: number; wall: number }>;
    samples.inEngine.push(e.inside);
    samples.replayed.push(r.inside);
    samples.firstExtra.push(e.first - r.first);
    samples.outside.push(e.wall - e.inside);
    samples.alone.push(n.wall);
  }
  const med = (xs: number[]): number => {
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
  };
  const [inEngine, replayed, firstExtra, outside, alone] = [
    samples.inEngine,
    samples.replayed,
    samples.firstExtra,
    samples.outside,
    samples.alone,
  ].map(med) as [number, number, number, number, number];
  return `${''.padEnd(14)} signatures in the engine ${inEngine.toFixed(3)} ms vs replayed ${replayed.toFixed(3)} ms (×${(inEngine / replayed).toFixed(3)}, first two calls +${(1000 * firstExtra).toFixed(0)} µs of the ${(1000 * (inEngine - replayed)).toFixed(0)} µs)  engine's own work ${outside.toFixed(3)} ms between real signatures vs ${alone.toFixed(3)} ms answered at once (×${(outside / alone).toFixed(3)})`;
}
