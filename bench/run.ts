// Load benchmark of POST /verify and POST /verify/batch (`pnpm bench`): builder bundles per tier and
// V1, JSON and CBOR, cache off, against the raw signature cost measured in the same run. Issue 14;
// docs/architecture.md §3 (worker pool).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
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
import { encodeCbor } from '@proto/service-kit';
import autocannon from 'autocannon';
import { callCounts, recordingBackend, type SignatureCall } from './engine-cases.ts';
import {
  captureAnswer,
  FLOOR_HEADER,
  type FloorKind,
  floorRow,
  holdMsFor,
  startFloor,
} from './http-floor.ts';
import { IMAGE_NODE_OPTIONS } from './image-env.ts';
import { DEFAULT_BATCHES, runRow } from './load-plan.ts';
import { cpuTimeMs, ownCpuMs, rssMb, threadCpuTimeMs } from './proc-stats.ts';

const MAIN = fileURLToPath(new URL('../services/verification/src/main.ts', import.meta.url));
/** The same service without the /v2 records and their key directory (the "off" side of the pair). */
const MAIN_WITHOUT_RECORDS = fileURLToPath(new URL('./verification-without-records.ts', import.meta.url));
/** The tier measured twice, key directory on and off, in one run (issue 15: "within noise"). */
const KEY_DIRECTORY_CASE = process.env['BENCH_KEY_DIRECTORY_CASE'] ?? 'v2 elevated (10)';
const CORES = availableParallelism();
const DURATION_S = Number(process.env['BENCH_DURATION_S'] ?? 5);
/** Whole batches per batch row, every one answered (P91); BENCH_DURATION_S times the single-request rows. */
const BATCHES = Number(process.env['BENCH_BATCHES'] ?? DEFAULT_BATCHES);
const BACKEND = (process.env['CRYPTO_BACKEND'] ?? 'auto') as 'auto' | 'native' | 'noble';
/** Unset: the service's own default (cores). */
const WORKERS = process.env['BENCH_WORKERS'];
/** The operator's default level: request logging is part of what an operator pays for. */
const LOG_LEVEL = process.env['BENCH_LOG_LEVEL'] ?? 'info';
/** A directory: the service runs under `node --cpu-prof` and writes one profile per thread there. */
const CPU_PROF_DIR = process.env['BENCH_CPU_PROF'];
/** Rounds of a comparison between service variants (each round runs every variant once, in order). */
const ROUNDS = Number(process.env['BENCH_COMPARE_ROUNDS'] ?? 2);
/**
 * The HTTP floor servers run after every single-request row (bench/http-floor-server.ts, P98):
 * `fastify` (default), `fastify,node` adds bare node:http, `skip` runs none.
 */
const FLOOR_KINDS: readonly FloorKind[] =
  process.env['BENCH_HTTP_FLOOR'] === 'skip'
    ? []
    : (process.env['BENCH_HTTP_FLOOR'] ?? 'fastify').split(',').map((kind) => {
        const trimmed = kind.trim();
        if (trimmed !== 'fastify' && trimmed !== 'node') throw new Error(`BENCH_HTTP_FLOOR: unknown ${kind}`);
        return trimmed;
      });
/** Seconds of load on the first bundle before the first row, discarded (the JIT's warm-up). */
const WARMUP_S = Number(process.env['BENCH_WARMUP_S'] ?? 5);
/** Only the cases whose name contains this text. */
const ONLY = process.env['BENCH_ONLY'];
/** The SPEC.md body limit of POST /verify (bundles above it are measured in-process only). */
const BODY_LIMIT = 1_048_576;
/** Default VERIFY_BATCH_MAX_BYTES: a batch body is filled up to this size (or BATCH_ITEMS items). */
const BATCH_MAX_BYTES = 8 * 1_048_576;
const BATCH_ITEMS = 64;
/** The service's default floor; the signature count below is taken under the same mode. */
const MODE = (process.env['VERIFIER_MODE'] ?? 'hybrid_preferred') as
  | 'classical_only'
  | 'hybrid_preferred'
  | 'hybrid_required';

interface Case {
  readonly name: string;
  readonly options: BuildOptions;
}

const ALL_CASES: readonly Case[] = [
  { name: 'v2 routine (10)', options: { tier: 'routine', entries: 10 } },
  { name: 'v2 standard (10)', options: { tier: 'standard', entries: 10 } },
  { name: 'v2 elevated (10)', options: { tier: 'elevated', entries: 10 } },
  { name: 'v2 maximum (60)', options: { tier: 'maximum', entries: 60 } },
  { name: 'v2 maximum (1000)', options: { tier: 'maximum', entries: 1000 } },
  { name: 'v1 (10)', options: { version: '1.0', entries: 10 } },
];
const DATA_DIR = mkdtempSync(join(tmpdir(), 'proto-bench-'));
const dataDirs = new Map<string, string>();
/** One data directory per service build entry, under this run's DATA_DIR. */
function dataDirOf(entry: string): string {
  let dir = dataDirs.get(entry);
  if (dir === undefined) {
    dir = join(DATA_DIR, String(dataDirs.size));
    mkdirSync(dir, { recursive: true });
    dataDirs.set(entry, dir);
  }
  return dir;
}
const CASES = ALL_CASES.filter((c) => ONLY === undefined || c.name.includes(ONLY));

/**
 * The raw signature cost of one bundle (ms, one core): its own verify() calls replayed on the same
 * backend (keys cached as the engine caches them), so message lengths are the bundle's. Measured again
 * around every row, since a shared machine's speed drifts between rows.
 */
function replayRawMs(backend: CryptoBackend, calls: readonly SignatureCall[], budgetMs = 300): number {
  const once = () => {
    for (const c of calls) {
      if (!backend.verify(c.alg, c.publicKey, c.message, c.signature)) throw new Error('replay failed');
    }
  };
  once();
  let rounds = 0;
  const t0 = performance.now();
  let elapsed = 0;
  do {
    once();
    rounds++;
    elapsed = performance.now() - t0;
  } while (elapsed < budgetMs && rounds < 10_000);
  return elapsed / rounds;
}

/** A measured run with the bundle's raw signature cost taken just before and just after it (mean). */
async function measureWithRaw<T>(
  backend: CryptoBackend,
  p: Prepared,
  run: () => Promise<T>,
): Promise<[T, number, number]> {
  const before = replayRawMs(backend, p.calls);
  const measured = await run();
  const after = replayRawMs(backend, p.calls);
  // after ÷ before: a shared host's speed can move during a row, and then no share from it is exact.
  return [measured, (before + after) / 2, after / before];
}

/** Rows whose raw cost moved more than this between before and after are marked as unreliable. */
const RAW_DRIFT_LIMIT = 0.1;

/** Single-thread cost of one verification per algorithm (ms), same backend, 600-byte message. */
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
  readonly json: string;
  /** Undefined when the bundle holds a value CBOR does not carry (a float: PROTOCOL §8.2). */
  readonly cbor: Buffer | undefined;
  readonly signatures: Map<SigningAlg, number>;
  /** The bundle's verify() calls, replayed for the raw cost (replayRawMs). */
  readonly calls: readonly SignatureCall[];
  /** Signature work per bundle on one core (ms). */
  readonly rawMs: number;
  /** In-process verify() of the parsed request, one thread (ms), for bundles over the body limit. */
  readonly engineMs: number;
}

function prepare(backend: CryptoBackend): Prepared[] {
  return CASES.map(({ name, options }) => {
    const built = buildSignedBundle({ ...options, backend });
    const request = { signed_bundle: built.signed_bundle };
    const { backend: recording, calls } = recordingBackend(backend);
    const verifier = createVerifier({ mode: MODE, backend: recording });
    if (!verifier.ok) throw new Error(verifier.error.message);
    const verdict = verifier.value.verify(request);
    if (!verdict.verified) throw new Error(`${name} does not verify: ${JSON.stringify(verdict.errors)}`);
    const counts = callCounts(calls);
    const json = JSON.stringify(request);
    const plain = createVerifier({ mode: MODE, backend });
    if (!plain.ok) throw new Error(plain.error.message);
    // The engine and the raw replay alternate, so both see the same machine.
    const rough = replayRawMs(backend, calls, 50);
    const runs = Math.max(3, Math.min(50, Math.round(250 / Math.max(rough, 1))));
    plain.value.verify(JSON.parse(json));
    let engineTotal = 0;
    let rawTotal = 0;
    for (let round = 0; round < 2; round++) {
      rawTotal += replayRawMs(backend, calls, 150);
      const t0 = performance.now();
      for (let i = 0; i < runs; i++) plain.value.verify(JSON.parse(json));
      engineTotal += (performance.now() - t0) / runs;
    }
    rawTotal += replayRawMs(backend, calls, 150);
    const rawMs = rawTotal / 3;
    const engineMs = engineTotal / 2;
    let cbor: Buffer | undefined;
    try {
      cbor = encodeCbor(request);
    } catch {
      cbor = undefined;
    }
    return { name, json, cbor, signatures: counts, calls, rawMs, engineMs };
  });
}

const cpuProfArgs = () => (CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF_DIR}`] : []);

async function startService(
  port: number,
  entry = MAIN,
  workers = WORKERS,
  logLevel = LOG_LEVEL,
  env: Readonly<Record<string, string>> = {},
): Promise<ChildProcess> {
  const child = spawn(process.execPath, [...cpuProfArgs(), entry], {
    env: {
      // As the image runs it (docker/Dockerfile; docs/operations.md, Memory), unless the caller says otherwise.
      NODE_OPTIONS: IMAGE_NODE_OPTIONS,
      NODE_COMPILE_CACHE: join(tmpdir(), 'proto-bench-compile-cache'),
      ...process.env,
      // The records' store (key directory) of this run and this build only: an older build
      // (BENCH_COMPARE_ENTRY) refuses a store that a newer one has migrated.
      DATA_DIR: dataDirOf(entry),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: logLevel,
      ...(workers === undefined ? {} : { VERIFY_WORKERS: workers }),
      VERIFY_QUEUE_MAX: '4096',
      VERIFICATION_CACHE_MAX_ENTRIES: '0',
      VERIFY_RATE_LIMIT_PER_MINUTE: '0',
      MAX_EVENT_LOOP_DELAY_MS: '0',
      VERIFIER_MODE: MODE,
      CRYPTO_BACKEND: BACKEND,
      ...env,
    },
    // Log lines go nowhere, as to a log shipper that keeps up; writing them is still paid for.
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // A loaded machine can take well over 30 s to start a service (compile cache cold, cores busy).
  const end = Date.now() + 90_000;
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

interface Load {
  readonly path: string;
  readonly contentType: string;
  readonly accept: string;
  readonly body: string | Buffer;
  /** Bundles per request (batch). */
  readonly perRequest: number;
}

interface Measured {
  readonly bundlesPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  /** Service CPU (all threads) per bundle verified, ms. */
  readonly cpuPerBundle: number;
  /** The service's main thread per bundle, ms: its own /metrics reading (NaN: a build without it, P86). */
  readonly mainPerBundle: number;
  /** The same from /proc/PID/task/PID/stat, as a check of the service's own reading. */
  readonly mainProcPerBundle: number;
  /** The verification worker threads together per bundle, ms (/metrics; NaN: a build without it). */
  readonly workersPerBundle: number;
  /** The load generator (this process: autocannon runs in it) per bundle, ms. */
  readonly loadgenPerBundle: number;
  /** Cores the load generator kept busy on average over the run. */
  readonly loadgenCores: number;
  readonly peakRssMb: number;
  readonly failures: number;
}

/** The service's CPU per thread kind from its own /metrics (P86), in ms; undefined when it has none. */
async function threadCpuOf(url: string): Promise<{ main: number; workers: number } | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const read = (thread: string) => {
    const match = new RegExp(
      `^proto_verify_thread_cpu_seconds_total\\{thread="${thread}"\\} (\\S+)$`,
      'm',
    ).exec(text);
    return match === null ? undefined : Number(match[1]) * 1000;
  };
  const main = read('main');
  const workers = read('workers');
  return main === undefined || workers === undefined ? undefined : { main, workers };
}

/** Every bundle the service judged since it started (proto_bundles_verified_total, all labels). */
async function bundlesJudged(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let total = 0;
  for (const match of text.matchAll(/^proto_bundles_verified_total\{[^}]*\} (\S+)$/gm))
    total += Number(match[1]);
  return total;
}

/** This process's CPU (every thread), ms: autocannon and its sockets run here. */

async function measure(pid: number, url: string, load: Load, connections: number): Promise<Measured> {
  let peakRssMb = rssMb(pid);
  let sampler: NodeJS.Timeout | undefined;
  let threads0: Awaited<ReturnType<typeof threadCpuOf>>;
  let threads1: Awaited<ReturnType<typeof threadCpuOf>>;
  let main0 = 0;
  let cpu0 = 0;
  let gen0 = 0;
  let mainProc = 0;
  let cpu = 0;
  let gen = 0;
  const run = await runRow(
    { url: `${url}${load.path}`, ...load },
    { perRequest: load.perRequest, connections, durationS: DURATION_S, batches: BATCHES },
    {
      before: async () => {
        peakRssMb = rssMb(pid);
        sampler = setInterval(() => {
          peakRssMb = Math.max(peakRssMb, rssMb(pid));
        }, 250);
        threads0 = await threadCpuOf(url);
        main0 = threadCpuTimeMs(pid, pid);
        cpu0 = cpuTimeMs(pid);
        gen0 = ownCpuMs();
      },
      after: async () => {
        gen = ownCpuMs() - gen0;
        cpu = cpuTimeMs(pid) - cpu0;
        mainProc = threadCpuTimeMs(pid, pid) - main0;
        threads1 = await threadCpuOf(url);
        clearInterval(sampler);
      },
    },
  );
  const { result, wallMs } = run;
  const bundles = Math.max(1, run.answered) * load.perRequest;
  return {
    bundlesPerSecond: run.bundlesPerSecond,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuPerBundle: cpu / bundles,
    mainPerBundle: threads0 && threads1 ? (threads1.main - threads0.main) / bundles : Number.NaN,
    mainProcPerBundle: mainProc / bundles,
    workersPerBundle: threads0 && threads1 ? (threads1.workers - threads0.workers) / bundles : Number.NaN,
    loadgenPerBundle: gen / bundles,
    loadgenCores: gen / wallMs,
    peakRssMb,
    failures: result.non2xx + result.errors,
  };
}

const num = (n: number, digits = 1, width = 8) => n.toFixed(digits).padStart(width);

function batchBody(p: Prepared): { body: string; items: number } | undefined {
  const line = `${p.json}\n`;
  const items = Math.min(BATCH_ITEMS, Math.floor(BATCH_MAX_BYTES / Buffer.byteLength(line)));
  if (items < 2) return undefined;
  return { body: line.repeat(items), items };
}

/** RFC 8742: the CBOR items back to back. */
function cborSequenceBody(p: Prepared): { body: Buffer; items: number } | undefined {
  if (p.cbor === undefined) return undefined;
  const items = Math.min(BATCH_ITEMS, Math.floor(BATCH_MAX_BYTES / p.cbor.length));
  if (items < 2) return undefined;
  return { body: Buffer.concat(Array.from({ length: items }, () => p.cbor!)), items };
}

function row(p: Prepared, mode: string, m: Measured): string {
  const limitAll = (1000 / p.rawMs) * CORES;
  return `${p.name.padEnd(19)} ${mode.padEnd(18)} ${num(m.bundlesPerSecond)} ${num(m.p50)} ${num(m.p99)} ${num(m.cpuPerBundle, 2, 14)} ${num(p.rawMs, 2, 7)} ${num((100 * p.rawMs) / m.cpuPerBundle, 0, 5)} % ${num(m.bundlesPerSecond / limitAll, 2, 17)} ${num(m.peakRssMb, 0, 12)} ${String(m.failures).padStart(8)}`;
}

/**
 * The second table: where the service's CPU per bundle goes by thread kind, what the load generator
 * took of the same cores, and the throughput ratio against the cores it left to the service.
 */
const ACCOUNT_HEADER =
  'bundle              mode               CPU ms/verify  main ms  (/proc)  workers ms  other ms  loadgen ms  loadgen cores  share  sig/workers  ratio(cores left)';

function accountRow(p: Prepared, mode: string, m: Measured): string {
  const other = m.cpuPerBundle - m.mainPerBundle - m.workersPerBundle;
  const limitLeft = (1000 / p.rawMs) * Math.max(CORES - m.loadgenCores, 0.01);
  return `${p.name.padEnd(19)} ${mode.padEnd(18)} ${num(m.cpuPerBundle, 2, 13)} ${num(m.mainPerBundle, 2)} ${num(m.mainProcPerBundle, 2)} ${num(m.workersPerBundle, 2, 11)} ${num(other, 2, 9)} ${num(m.loadgenPerBundle, 2, 11)} ${num(m.loadgenCores, 2, 14)} ${num((100 * p.rawMs) / m.cpuPerBundle, 0, 4)} % ${num((100 * p.rawMs) / m.workersPerBundle, 0, 10)} % ${num(m.bundlesPerSecond / limitLeft, 2, 18)}`;
}

/**
 * The floor servers under the load just measured against the service: the same body, the service's own
 * answer to it, 8 connections for BENCH_DURATION_S, each answer held so they arrive at the service's
 * rate (holdMsFor). Returns the floor table's lines.
 */
async function measureFloors(
  p: Prepared,
  mode: string,
  serviceUrl: string,
  load: Load,
  service: Measured,
  connections: number,
): Promise<string[]> {
  const answer = await captureAnswer(`${serviceUrl}${load.path}`, load);
  if (answer.status !== 200) throw new Error(`${p.name} ${mode}: the service answered ${answer.status}`);
  const serviceSide = {
    main: service.mainProcPerBundle,
    other: service.cpuPerBundle - service.mainPerBundle - service.workersPerBundle,
  };
  const lines: string[] = [];
  for (const kind of FLOOR_KINDS) {
    const floor = await startFloor(
      kind,
      join(DATA_DIR, 'floor-answer.json'),
      answer,
      holdMsFor(connections, service.bundlesPerSecond),
      cpuProfArgs(),
    );
    try {
      const m = await measure(floor.child.pid!, floor.url, load, connections);
      if (m.failures > 0)
        throw new Error(`${p.name} ${mode}: the ${kind} floor failed ${m.failures} requests`);
      lines.push(
        floorRow(
          p.name,
          mode,
          kind,
          { service: service.bundlesPerSecond, floor: m.bundlesPerSecond },
          serviceSide,
          { all: m.cpuPerBundle, main: m.mainProcPerBundle },
        ),
      );
      if (CPU_PROF_DIR) {
        // Its profile covers its whole life, warm-up included: divide by every request it answered.
        const answered = await (await fetch(`${floor.url}/requests`)).text();
        lines.push(
          `  profiled ${kind} floor: pid ${floor.child.pid}; node bench/profile-summary.ts ${CPU_PROF_DIR} 30 --pid=${floor.child.pid} --requests=${answered}`,
        );
      }
    } finally {
      await stopService(floor.child);
    }
  }
  return lines;
}

const jsonLoad = (p: Prepared): Load => ({
  path: '/verify',
  contentType: 'application/json',
  accept: 'application/json',
  body: p.json,
  perRequest: 1,
});

/** Every load a bundle is measured under: /verify JSON and CBOR, and the batch as NDJSON and a CBOR sequence. */
function loadsOf(p: Prepared, batchAvailable: boolean): [string, Load][] {
  const loads: [string, Load][] = [['json', jsonLoad(p)]];
  if (p.cbor) {
    loads.push([
      'cbor',
      {
        path: '/verify',
        contentType: 'application/cbor',
        accept: 'application/cbor',
        body: p.cbor,
        perRequest: 1,
      },
    ]);
  }
  const batch = batchBody(p);
  if (batchAvailable && batch) {
    loads.push([
      `batch ndjson×${batch.items}`,
      {
        path: '/verify/batch',
        contentType: 'application/x-ndjson',
        accept: 'application/x-ndjson',
        body: batch.body,
        perRequest: batch.items,
      },
    ]);
  }
  const sequence = cborSequenceBody(p);
  if (batchAvailable && sequence) {
    loads.push([
      `batch cbor-seq×${sequence.items}`,
      {
        path: '/verify/batch',
        contentType: 'application/cbor-seq',
        accept: 'application/cbor-seq',
        body: sequence.body,
        perRequest: sequence.items,
      },
    ]);
  }
  return loads;
}

interface Variant {
  readonly label: string;
  readonly entry: string;
  readonly workers?: string;
  readonly logLevel?: string;
  /** Variables for this variant's service only (BENCH_COMPARE_ENV). */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * The same tier and load against service variants, alternating them (A B … A B …, BENCH_COMPARE_ROUNDS
 * rounds) so the drift of a shared machine falls on every side; prints each variant's mean row, its
 * ratios to the first, and every run's CPU and peak RSS (the spread the means hide).
 */
async function compareServices(
  backend: CryptoBackend,
  measuredCase: Prepared,
  title: string,
  variants: readonly Variant[],
  connections: number,
  load: [string, Load] = ['json', jsonLoad(measuredCase)],
) {
  const [mode, requests] = load;
  console.log(
    `\n${title} (${measuredCase.name}, ${mode}, ${variants.map((v) => v.label).join(' / ')} alternating, ${ROUNDS} rounds):`,
  );
  const runs = new Map<string, Measured[]>(variants.map((v) => [v.label, []]));
  const raws: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of variants) {
      const port = 3900 + Math.floor(Math.random() * 90);
      const child = await startService(port, variant.entry, variant.workers, variant.logLevel, variant.env);
      try {
        const [measured, rawMs] = await measureWithRaw(backend, measuredCase, () =>
          measure(child.pid!, `http://127.0.0.1:${port}`, requests, connections),
        );
        runs.get(variant.label)!.push(measured);
        raws.push(rawMs);
      } finally {
        await stopService(child);
      }
    }
  }
  const mean = (ms: readonly Measured[], f: (m: Measured) => number) =>
    ms.reduce((a, m) => a + f(m), 0) / ms.length;
  const base = runs.get(variants[0]!.label)!;
  // The raw cost as the machine was across all of this comparison's runs.
  const p: Prepared = { ...measuredCase, rawMs: raws.reduce((a, r) => a + r, 0) / raws.length };
  const accounts: string[] = [];
  for (const variant of variants) {
    const ms = runs.get(variant.label)!;
    const merged: Measured = {
      bundlesPerSecond: mean(ms, (m) => m.bundlesPerSecond),
      p50: mean(ms, (m) => m.p50),
      p99: mean(ms, (m) => m.p99),
      cpuPerBundle: mean(ms, (m) => m.cpuPerBundle),
      mainPerBundle: mean(ms, (m) => m.mainPerBundle),
      mainProcPerBundle: mean(ms, (m) => m.mainProcPerBundle),
      workersPerBundle: mean(ms, (m) => m.workersPerBundle),
      loadgenPerBundle: mean(ms, (m) => m.loadgenPerBundle),
      loadgenCores: mean(ms, (m) => m.loadgenCores),
      peakRssMb: Math.max(...ms.map((m) => m.peakRssMb)),
      failures: ms.reduce((a, m) => a + m.failures, 0),
    };
    const throughput = merged.bundlesPerSecond / mean(base, (m) => m.bundlesPerSecond);
    const cpu = merged.cpuPerBundle / mean(base, (m) => m.cpuPerBundle);
    console.log(`${row(p, variant.label, merged)}   ×${throughput.toFixed(3)} req/s, ×${cpu.toFixed(3)} CPU`);
    accounts.push(accountRow(p, variant.label, merged));
  }
  console.log(ACCOUNT_HEADER);
  for (const line of accounts) console.log(line);
  console.log('each run, in order: CPU ms/verify (workers ms), peak RSS MB');
  for (const variant of variants) {
    const each = runs
      .get(variant.label)!
      .map(
        (m) => `${m.cpuPerBundle.toFixed(2)} (${m.workersPerBundle.toFixed(2)}), ${m.peakRssMb.toFixed(0)}`,
      );
    console.log(`  ${variant.label.padEnd(18)} ${each.join(' | ')}`);
  }
}

async function main(): Promise<void> {
  const backend = selectCryptoBackend(BACKEND);
  console.log(
    `verification benchmark: backend ${backend.name}, ${CORES} cores, ${DURATION_S} s per run, cache off, rate limit off, LOG_LEVEL=${LOG_LEVEL}, VERIFIER_MODE=${MODE}, VERIFY_WORKERS=${WORKERS ?? 'default'}`,
  );
  const costs = signatureCosts(backend);
  for (const [alg, ms] of costs)
    console.log(
      `  raw ${alg} verify: ${(ms * 1000).toFixed(1)} µs (one core, 600-byte message; for scale only)`,
    );
  const prepared = prepare(backend);
  console.log(
    '\nbundle               bytes JSON  bytes CBOR  sigs ed/ml-dsa  raw ms  raw limit all cores/s  in-process verify ms  engine share',
  );
  for (const p of prepared) {
    const sigs = `${p.signatures.get('ed25519') ?? 0}/${p.signatures.get('ml-dsa-65') ?? 0}`;
    console.log(
      `${p.name.padEnd(19)} ${String(Buffer.byteLength(p.json)).padStart(11)} ${(p.cbor ? String(p.cbor.length) : 'n/a').padStart(11)}  ${sigs.padStart(14)} ${num(p.rawMs, 2)}  ${num((1000 / p.rawMs) * CORES, 1, 21)}  ${num(p.engineMs, 2, 20)}  ${num((100 * p.rawMs) / p.engineMs, 0, 10)} %`,
    );
  }

  const port = 3900 + Math.floor(Math.random() * 90);
  const url = `http://127.0.0.1:${port}`;
  const child = await startService(port);
  const pid = child.pid!;
  const idleRss = rssMb(pid);
  const connections = 8;
  const batchAvailable =
    (
      await fetch(`${url}/verify/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-ndjson' },
        body: '',
      })
    ).status !== 404;
  console.log(
    `\nservice pid ${pid}, idle RSS ${idleRss.toFixed(0)} MB, ${connections} connections, autocannon on the same machine`,
  );
  console.log(
    'bundle              mode               bundles/s   p50 ms   p99 ms  CPU ms/verify  raw ms   share  ratio(all cores)  peak RSS MB  non-2xx  raw drift',
  );
  const accounts: string[] = [];
  const floors: string[] = [];
  try {
    // The service's JavaScript runs unoptimised at first: without this, the first row alone pays for
    // the JIT (its main thread read 2.07 ms per request against 1.04 ms five rows later, P98).
    const first = prepared.find((p) => Buffer.byteLength(p.json) <= BODY_LIMIT);
    if (first !== undefined && WARMUP_S > 0 && process.env['BENCH_TABLE'] !== 'skip') {
      await autocannon({
        url: `${url}/verify`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: first.json,
        connections,
        duration: WARMUP_S,
      });
    }
    for (const p of process.env['BENCH_TABLE'] === 'skip' ? [] : prepared) {
      if (Buffer.byteLength(p.json) > BODY_LIMIT) {
        console.log(`${p.name.padEnd(19)} (over the 1 MB body limit: HTTP 413; in-process figures above)`);
        continue;
      }
      for (const [mode, load] of loadsOf(p, batchAvailable)) {
        const [m, rawMs, drift] = await measureWithRaw(backend, p, () =>
          measure(pid, url, load, load.perRequest > 1 ? 2 : connections),
        );
        const unsteady = Math.abs(drift - 1) > RAW_DRIFT_LIMIT ? '  *' : '';
        console.log(`${row({ ...p, rawMs }, mode, m)} ${`×${drift.toFixed(2)}`.padStart(9)}${unsteady}`);
        accounts.push(accountRow({ ...p, rawMs }, mode, m));
        if (load.perRequest === 1) floors.push(...(await measureFloors(p, mode, url, load, m, connections)));
      }
    }
    if (accounts.length > 0) {
      console.log('\nwhere the CPU per bundle goes (same runs):');
      console.log(ACCOUNT_HEADER);
      for (const line of accounts) console.log(line);
    }
    if (floors.length > 0) {
      console.log(
        `\nthe HTTP floor (same body, the service's answer replayed, ${connections} connections held to the service's req/s; ms per request):`,
      );
      console.log(FLOOR_HEADER);
      for (const line of floors) console.log(line);
    }
    const heaviest =
      prepared.find((p) => p.name.startsWith('v2 maximum (60)')) ??
      prepared.find((p) => Buffer.byteLength(p.json) <= BODY_LIMIT);
    if (heaviest) {
      const [load, health] = await Promise.all([
        autocannon({
          url: `${url}/verify`,
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: heaviest.json,
          connections: connections * 2,
          duration: DURATION_S,
        }),
        autocannon({ url: `${url}/health`, connections: 1, duration: DURATION_S }),
      ]);
      console.log(
        `\n/health under full /verify load (${heaviest.name}, ${load.requests.average.toFixed(1)} verify req/s): p50 ${health.latency.p50} ms, p99 ${health.latency.p99} ms`,
      );
    }
    console.log(`RSS after the runs: ${rssMb(pid).toFixed(0)} MB (idle at start: ${idleRss.toFixed(0)} MB)`);
    if (CPU_PROF_DIR) {
      // The profile covers the service's whole life, warm-ups and /health included: divide by all it judged.
      const judged = await bundlesJudged(url);
      console.log(
        `profiled service: pid ${pid}, ${judged} bundles judged in all; node bench/profile-summary.ts ${CPU_PROF_DIR} 30 --pid=${pid} --requests=${judged}`,
      );
    }
  } finally {
    await stopService(child);
  }
  const pairCase = prepared.find((p) => p.name === KEY_DIRECTORY_CASE);
  if (pairCase !== undefined && process.env['BENCH_KEY_DIRECTORY'] !== 'skip') {
    // Issue 15: the service with the /v2 records (key directory fed by every verdict) and without them.
    await compareServices(
      backend,
      pairCase,
      'key directory on vs off',
      [
        { label: 'key dir on', entry: MAIN },
        { label: 'key dir off', entry: MAIN_WITHOUT_RECORDS },
      ],
      connections,
    );
  }
  // Issue 14: VERIFY_WORKERS=1,2,3 (BENCH_COMPARE_WORKERS) under the same load, load generator on the same cores.
  const workerCounts = process.env['BENCH_COMPARE_WORKERS'];
  if (pairCase !== undefined && workerCounts !== undefined) {
    await compareServices(
      backend,
      pairCase,
      'VERIFY_WORKERS compared',
      workerCounts.split(',').map((n) => ({ label: `workers ${n.trim()}`, entry: MAIN, workers: n.trim() })),
      connections,
    );
  }
  // Issue 14: this service against another build of it (BENCH_COMPARE_ENTRY: its main.ts, e.g. in a
  // worktree of main), every case and load of the run, alternating; BENCH_TABLE=skip leaves out the table.
  const otherEntry = process.env['BENCH_COMPARE_ENTRY'];
  if (otherEntry !== undefined) {
    for (const p of prepared.filter((c) => Buffer.byteLength(c.json) <= BODY_LIMIT)) {
      // BENCH_COMPARE_LOAD: only the loads whose name holds this text (e.g. `ndjson`).
      const onlyLoad = process.env['BENCH_COMPARE_LOAD'];
      for (const load of loadsOf(p, true).filter(
        ([name]) => onlyLoad === undefined || name.includes(onlyLoad),
      )) {
        await compareServices(
          backend,
          p,
          'other build vs this one',
          [
            { label: 'other', entry: otherEntry },
            { label: 'this', entry: MAIN },
          ],
          load[1].perRequest > 1 ? 2 : connections,
          load,
        );
      }
    }
  }
  // P99: the same service under other environments (label:K=V,K=V;…), e.g. V8 heap settings:
  // BENCH_COMPARE_ENV='default:;again:;semi 16:NODE_OPTIONS=--max-semi-space-size=16' (a second
  // default is the same-vs-same control). A value cannot hold a comma.
  const envVariants = process.env['BENCH_COMPARE_ENV'];
  if (pairCase !== undefined && envVariants !== undefined) {
    await compareServices(
      backend,
      pairCase,
      'environments compared',
      envVariants.split(';').map((variant) => {
        const [label = '', assignments = ''] = variant.split(':');
        const env = Object.fromEntries(
          assignments
            .split(',')
            .filter((a) => a.includes('='))
            .map((a) => [a.slice(0, a.indexOf('=')).trim(), a.slice(a.indexOf('=') + 1).trim()]),
        );
        return { label: label.trim(), entry: MAIN, env };
      }),
      connections,
    );
  }
  // Issue 14: what request logging at info costs, against warn (no request lines).
  if (pairCase !== undefined && process.env['BENCH_COMPARE_LOG'] !== undefined) {
    await compareServices(
      backend,
      pairCase,
      'request logging compared',
      [
        { label: 'LOG_LEVEL=info', entry: MAIN, logLevel: 'info' },
        { label: 'LOG_LEVEL=warn', entry: MAIN, logLevel: 'warn' },
      ],
      connections,
    );
  }
  rmSync(DATA_DIR, { recursive: true, force: true });
  console.log(
    [
      '',
      'CPU ms/verify = utime+stime of the service process (all threads, /proc/PID/stat) ÷ bundles answered 2xx;',
      "raw ms = the bundle's own verify() calls replayed on one core (same keys, messages, signatures), taken just\nbefore and after each row (raw drift = after ÷ before; * = moved over 10 %: the host's speed changed during the row,\nso its share is not exact); share = raw ms ÷ CPU ms/verify; ratio = bundles/s ÷ (cores ÷ raw ms). The load generator shares the cores.",
      "main, workers = the service's proto_verify_thread_cpu_seconds_total{thread} (P86) over the run ÷ bundles;",
      '(/proc) = its main thread from /proc/PID/task/PID/stat, a check; other = CPU − main − workers (GC helper,',
      "libuv and compiler threads); loadgen = this process's CPU (autocannon runs in it) ÷ bundles, and loadgen",
      'cores = that CPU ÷ wall time; sig/workers = raw ms ÷ workers ms (what the workers do beyond signatures);',
      "ratio(cores left) = bundles/s ÷ ((cores − loadgen cores) ÷ raw ms): the ratio with the load generator's",
      'cores taken out. A build without the thread metric prints NaN for main, workers, other and sig/workers.',
      "floor = a server with the service's Node and Fastify (node: bare node:http) that takes the same body as bytes",
      "and sends the service's captured answer (status, headers, body) back, each held so its req/s is the service's;",
      'service main = its main thread from /proc; floor all / main = the floor process / its main thread from /proc.',
    ].join('\n'),
  );
}

await main();
