// Load benchmark of POST /verify (`pnpm bench`): builder bundles per tier and V1, cache off, against
// the raw signature cost of the same bundles on the same backend. docs/architecture.md §3 (worker pool).
import { type ChildProcess, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import {
  type BuildOptions,
  buildSignedBundle,
  type CryptoBackend,
  createVerifier,
  type SigningAlg,
  selectCryptoBackend,
} from '@proto/core';
import autocannon from 'autocannon';

const MAIN = fileURLToPath(new URL('../services/verification/src/main.ts', import.meta.url));
const CORES = availableParallelism();
const DURATION_S = Number(process.env['BENCH_DURATION_S'] ?? 5);
const BACKEND = (process.env['CRYPTO_BACKEND'] ?? 'auto') as 'auto' | 'native' | 'noble';
/** The service's default floor; the signature count below is taken under the same mode. */
const MODE = (process.env['VERIFIER_MODE'] ?? 'hybrid_preferred') as
  | 'classical_only'
  | 'hybrid_preferred'
  | 'hybrid_required';

interface Case {
  readonly name: string;
  readonly options: BuildOptions;
}

const CASES: readonly Case[] = [
  { name: 'v2 routine (10 entries)', options: { tier: 'routine', entries: 10 } },
  { name: 'v2 standard (10 entries)', options: { tier: 'standard', entries: 10 } },
  { name: 'v2 elevated (10 entries)', options: { tier: 'elevated', entries: 10 } },
  { name: 'v2 maximum (60 entries)', options: { tier: 'maximum', entries: 60 } },
  { name: 'v1 (10 entries)', options: { version: '1.0', entries: 10 } },
];

/** A backend that counts verify() calls per algorithm, to learn each bundle's signature work. */
function countingBackend(inner: CryptoBackend): { backend: CryptoBackend; counts: Map<SigningAlg, number> } {
  const counts = new Map<SigningAlg, number>();
  const backend: CryptoBackend = {
    name: inner.name,
    algorithms: inner.algorithms,
    sign: (alg, secretKey, message) => inner.sign(alg, secretKey, message),
    generateKeyPair: (alg) => inner.generateKeyPair(alg),
    verify: (alg, publicKey, message, signature) => {
      counts.set(alg, (counts.get(alg) ?? 0) + 1);
      return inner.verify(alg, publicKey, message, signature);
    },
  };
  return { backend, counts };
}

/** Single-thread cost of one verification per algorithm (ms), same backend, fresh keys, 600-byte message. */
function signatureCosts(backend: CryptoBackend): Map<SigningAlg, number> {
  const costs = new Map<SigningAlg, number>();
  const message = new Uint8Array(600).map((_, i) => i & 0xff);
  for (const alg of backend.algorithms) {
    const keys = backend.generateKeyPair(alg);
    const signature = backend.sign(alg, keys.secretKey, message);
    for (let i = 0; i < 50; i++) backend.verify(alg, keys.publicKey, message, signature);
    const iterations = alg === 'ed25519' ? 4000 : 1000;
    const t0 = performance.now();
    for (let i = 0; i < iterations; i++) {
      if (!backend.verify(alg, keys.publicKey, message, signature))
        throw new Error(`${alg} self-check failed`);
    }
    costs.set(alg, (performance.now() - t0) / iterations);
  }
  return costs;
}

interface Prepared {
  readonly name: string;
  readonly body: string;
  readonly bytes: number;
  readonly signatures: Map<SigningAlg, number>;
  /** Signature work per bundle on one core (ms). */
  readonly rawMs: number;
}

function prepare(backend: CryptoBackend, costs: Map<SigningAlg, number>): Prepared[] {
  return CASES.map(({ name, options }) => {
    const built = buildSignedBundle({ ...options, backend });
    const request = { signed_bundle: built.signed_bundle };
    const { backend: counting, counts } = countingBackend(backend);
    const verifier = createVerifier({ mode: MODE, backend: counting });
    if (!verifier.ok) throw new Error(verifier.error.message);
    const verdict = verifier.value.verify(request);
    if (!verdict.verified) throw new Error(`${name} does not verify: ${JSON.stringify(verdict.errors)}`);
    let rawMs = 0;
    for (const [alg, n] of counts) rawMs += n * (costs.get(alg) ?? 0);
    const body = JSON.stringify(request);
    return { name, body, bytes: Buffer.byteLength(body), signatures: counts, rawMs };
  });
}

async function startService(workers: number, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      VERIFY_WORKERS: String(workers),
      VERIFY_QUEUE_MAX: String(workers * 256),
      VERIFICATION_CACHE_MAX_ENTRIES: '0',
      VERIFY_RATE_LIMIT_PER_MINUTE: '0',
      MAX_EVENT_LOOP_DELAY_MS: '0',
      VERIFIER_MODE: MODE,
      CRYPTO_BACKEND: BACKEND,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const end = Date.now() + 20_000;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/ready`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > end) throw new Error('the verification service did not become ready');
    await new Promise((r) => setTimeout(r, 100));
  }
  return child;
}

async function stopService(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

const fmt = (n: number, digits = 1) => n.toFixed(digits).padStart(9);

async function main(): Promise<void> {
  const backend = selectCryptoBackend(BACKEND);
  console.log(
    `verification benchmark: backend ${backend.name}, ${CORES} cores, ${DURATION_S} s per run, cache off, VERIFIER_MODE=${MODE}`,
  );
  const costs = signatureCosts(backend);
  for (const [alg, ms] of costs) console.log(`  raw ${alg} verify: ${(ms * 1000).toFixed(1)} µs (one core)`);
  const prepared = prepare(backend, costs);
  console.log(
    '\nbundle                       bytes   signatures (ed25519/ml-dsa-65)  raw limit 1 core / all cores (bundles/s)',
  );
  for (const p of prepared) {
    const ed = p.signatures.get('ed25519') ?? 0;
    const pq = p.signatures.get('ml-dsa-65') ?? 0;
    console.log(
      `${p.name.padEnd(26)} ${String(p.bytes).padStart(8)}   ${`${ed}/${pq}`.padStart(12)}                ${fmt(1000 / p.rawMs)} / ${fmt((1000 / p.rawMs) * CORES)}`,
    );
  }

  const port = 3900 + Math.floor(Math.random() * 90);
  const url = `http://127.0.0.1:${port}`;
  const workerCounts = CORES > 1 ? [1, CORES] : [1];
  for (const workers of workerCounts) {
    console.log(`\nVERIFY_WORKERS=${workers}`);
    console.log(
      'bundle                        req/s     p50 ms    p99 ms  limit(all)  ratio(all)  limit(workers)  ratio(workers)  non-2xx',
    );
    const child = await startService(workers, port);
    try {
      for (const p of prepared) {
        // A short warm-up, then the measured run.
        await autocannon({
          url: `${url}/verify`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: p.body,
          connections: workers * 2,
          duration: 1,
        });
        const result = await autocannon({
          url: `${url}/verify`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: p.body,
          connections: workers * 4,
          duration: DURATION_S,
        });
        const limitAll = (1000 / p.rawMs) * CORES;
        const limitWorkers = (1000 / p.rawMs) * Math.min(workers, CORES);
        const rps = result.requests.average;
        console.log(
          `${p.name.padEnd(26)} ${fmt(rps)} ${fmt(result.latency.p50)} ${fmt(result.latency.p99)} ${fmt(limitAll, 1)}  ${fmt(rps / limitAll, 2)}   ${fmt(limitWorkers, 1)}      ${fmt(rps / limitWorkers, 2)}  ${String(result.non2xx + result.errors).padStart(7)}`,
        );
      }
      if (workers === CORES) {
        const heaviest = prepared.find((p) => p.name.startsWith('v2 maximum')) ?? prepared[0]!;
        const [load, health] = await Promise.all([
          autocannon({
            url: `${url}/verify`,
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: heaviest.body,
            connections: workers * 8,
            duration: DURATION_S,
          }),
          autocannon({ url: `${url}/health`, connections: 1, duration: DURATION_S }),
        ]);
        console.log(
          `\n/health under full /verify load (${heaviest.name}, ${fmt(load.requests.average).trim()} verify req/s): p50 ${health.latency.p50} ms, p99 ${health.latency.p99} ms, ${health.requests.average.toFixed(0)} req/s`,
        );
      }
    } finally {
      await stopService(child);
    }
  }
  console.log(
    '\nlimit = cores (all, or as many as workers) ÷ (signature verifications per bundle × per-signature cost on one core);\nratio = measured req/s ÷ limit. The load generator runs on the same machine and shares its cores.',
  );
}

await main();
