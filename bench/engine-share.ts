// In-process engine share (issue 14, engine part): for each builder tier, the raw signature cost and
// createVerifier().verify() measured in the same run, and their ratio. PROFILE_LOOP=tier-name and
// PROFILE_SECONDS=n instead loop one case for `node --cpu-prof`.
// Usage: pnpm exec node bench/engine-share.ts
import { performance } from 'node:perf_hooks';
import {
  buildSignedBundle,
  type CryptoBackend,
  createVerifier,
  type SigningAlg,
  selectCryptoBackend,
} from '@proto/core';
import { ENGINE_CASES } from './engine-cases.ts';
import { ownCpuMs } from './proc-stats.ts';

const MODE = 'hybrid_preferred' as const;
const ONLY = process.env['ONLY'];
const LOOP = process.env['PROFILE_LOOP'];
const ROUNDS = Number(process.env['ROUNDS'] ?? 5);

function counting(inner: CryptoBackend): { backend: CryptoBackend; counts: Map<SigningAlg, number> } {
  const counts = new Map<SigningAlg, number>();
  return {
    counts,
    backend: {
      ...inner,
      sign: (a, s, m) => inner.sign(a, s, m),
      generateKeyPair: (a) => inner.generateKeyPair(a),
      verify: (alg, pk, m, sig) => {
        counts.set(alg, (counts.get(alg) ?? 0) + 1);
        return inner.verify(alg, pk, m, sig);
      },
    },
  };
}

function signatureCosts(backend: CryptoBackend): Map<SigningAlg, number> {
  const costs = new Map<SigningAlg, number>();
  const message = new Uint8Array(600).map((_, i) => i & 0xff);
  for (const alg of backend.algorithms) {
    const keys = backend.generateKeyPair(alg);
    const signature = backend.sign(alg, keys.secretKey, message);
    for (let i = 0; i < 50; i++) backend.verify(alg, keys.publicKey, message, signature);
    const n = alg === 'ed25519' ? 4000 : 1000;
    const t0 = ownCpuMs();
    for (let i = 0; i < n; i++) backend.verify(alg, keys.publicKey, message, signature);
    costs.set(alg, (ownCpuMs() - t0) / n);
  }
  return costs;
}

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
  const c = counting(backend);
  const v = createVerifier({ mode: MODE, backend: c.backend });
  if (!v.ok) throw new Error(v.error.message);
  const verdict = v.value.verify(JSON.parse(json));
  if (!verdict.verified) throw new Error(`${name} does not verify`);
  // Interleave engine and raw measurements so machine noise hits both alike.
  let engine = 0;
  let raw = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const costs = signatureCosts(backend);
    let r = 0;
    for (const [alg, k] of c.counts) r += k * (costs.get(alg) ?? 0);
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
  const instant: CryptoBackend = { ...backend, verify: () => true };
  const iv = createVerifier({ mode: MODE, backend: instant });
  if (!iv.ok) throw new Error(iv.error.message);
  for (let i = 0; i < 5; i++) iv.value.verify(parsed);
  const o0 = ownCpuMs();
  const overheadRuns = runs * ROUNDS * 2;
  for (let i = 0; i < overheadRuns; i++) iv.value.verify(parsed);
  const overhead = (ownCpuMs() - o0) / overheadRuns;
  raw /= ROUNDS;
  engine /= ROUNDS;
  console.log(
    `${name.padEnd(14)} raw ${raw.toFixed(2).padStart(7)} ms  engine ${engine.toFixed(2).padStart(7)} ms  share ${((100 * raw) / engine).toFixed(0)} %  in backend.verify ${(100 * insideShare).toFixed(1)} %  overhead ${overhead.toFixed(3)} ms (share at raw+overhead ${((100 * raw) / (raw + overhead)).toFixed(0)} %)`,
  );
}
