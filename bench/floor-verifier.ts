// The end-to-end floor of /verify's share (issue 14, P132): our verification service against the floor verifier
// (bench/floor-verifier-server.ts: strict UTF-8 and JSON.parse, the strict floor's steps, every signature
// verified with node:crypto, served by the same Node and Fastify), in its two arrangements, under the same load.
// The share bounds (share-bounds.ts) add up parts timed alone; this runs a minimal verifier whole and reads its
// CPU per verify from /proc as the service's is read, so what running the parts together costs is in it.
//
//   flock /work/notes/bench.lock pnpm exec node bench/floor-verifier.ts
//   FLOOR_VERIFIER_CASES=elevated-10 FLOOR_VERIFIER_SIDES=threads,threads flock /work/notes/bench.lock \
//     pnpm exec node bench/floor-verifier.ts
//
// FLOOR_VERIFIER_CASES: routine-10, elevated-10, maximum-60, comma-separated (default elevated-10,maximum-60).
// FLOOR_VERIFIER_SIDES: service, threads, inline, comma-separated, in the order each round runs them (default
// service,threads,inline; a side named twice is a same-against-same control, each a fresh process). P136's sides
// swap one floor piece for the service's: piscina (the floor's work handed off through piscina with the service's
// pool options), svcwork (plain threads running the service's worker task), piscina-svcwork (both: the
// service's VerifyPool behind the floor's plain Fastify route), engine (plain threads running core's verifier
// alone, built as the service's threads build theirs).
// BENCH_CPU_PROF=DIR runs every side under `node --cpu-prof` (one profile per thread, warm-up included) and prints
// each side's bench/profile-summary.ts line (P138).
// FLOOR_VERIFIER_ROUNDS: rounds (default 2). Each side of a round is a fresh process, given BENCH_WARMUP_S
// (default 5) of the load before BENCH_DURATION_S (default 5) measured, 8 connections of POST /verify JSON;
// the bundle's raw signature cost is replayed in this process just before and just after (raw-replay.ts).
// The service runs as `pnpm bench` runs it (bench-service.ts: cache and rate limit off, LOG_LEVEL=info); the
// floor verifier with as many verifying threads or processes as the service's VERIFY_WORKERS (BENCH_WORKERS,
// unset: the service's default, the machine's cores).
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { buildSignedBundle, type CryptoBackend, createVerifier, selectCryptoBackend } from '@proto/core';
import autocannon from 'autocannon';
import { bundlesJudged, cpuProfArgs, startService, stopService } from './bench-service.ts';
import {
  BACKEND,
  CORES,
  CPU_PROF_DIR,
  DATA_DIR,
  DURATION_S,
  MODE,
  WARMUP_S,
  WORKERS,
} from './bench-settings.ts';
import { ENGINE_CASES, instantVerifier, recordingBackend, type SignatureCall } from './engine-cases.ts';
import { floorPoolSettings } from './floor-verifier-pool.ts';
import { firstFailing, floorSignatureSet, floorVerify } from './floor-verifier-work.ts';
import { captureAnswer, encodeFloorAnswer, startListening } from './http-floor.ts';
import { warmUpFor } from './launch-service.ts';
import { median } from './median.ts';
import { cpuByGroupMs, machineJiffies, ownCpuMs, type ThreadCpu, threadsCpu } from './proc-stats.ts';
import { measureWithRaw, replayRaw } from './raw-replay.ts';

const SERVER = fileURLToPath(new URL('./floor-verifier-server.ts', import.meta.url));
const CONNECTIONS = 8;
const ROUNDS = Number(process.env['FLOOR_VERIFIER_ROUNDS'] ?? 2);
/** The floor's verifying threads or processes: the service's VERIFY_WORKERS (config.ts: default, cores). */
const FLOOR_WORKERS = WORKERS ?? String(CORES);
const WANTED_CASES = (process.env['FLOOR_VERIFIER_CASES'] ?? 'elevated-10,maximum-60').split(',');
const CASES = ENGINE_CASES.filter(
  (c) => ['routine-10', 'elevated-10', 'maximum-60'].includes(c.name) && WANTED_CASES.includes(c.name),
);
if (CASES.length === 0) throw new Error(`FLOOR_VERIFIER_CASES: none of ${WANTED_CASES.join(',')}`);

type Kind = 'service' | 'threads' | 'inline' | 'piscina' | 'svcwork' | 'piscina-svcwork' | 'engine';
const KINDS: readonly Kind[] = [
  'service',
  'threads',
  'inline',
  'piscina',
  'svcwork',
  'piscina-svcwork',
  'engine',
];
/** How the floor verifier server runs each floor kind (floor-verifier-server.ts). */
const FLOOR_ENV: Record<Exclude<Kind, 'service'>, Record<string, string>> = {
  threads: { FLOOR_VERIFIER: 'threads' },
  inline: { FLOOR_VERIFIER: 'inline' },
  piscina: { FLOOR_VERIFIER: 'piscina' },
  svcwork: { FLOOR_VERIFIER: 'threads', FLOOR_VERIFIER_WORK: 'service' },
  'piscina-svcwork': { FLOOR_VERIFIER: 'piscina', FLOOR_VERIFIER_WORK: 'service' },
  engine: { FLOOR_VERIFIER: 'threads', FLOOR_VERIFIER_WORK: 'engine' },
};
/** The service's pool and verifier settings under the environment bench-service.ts gives the service. */
const POOL_SETTINGS = JSON.stringify(
  floorPoolSettings({
    VERIFY_WORKERS: FLOOR_WORKERS,
    VERIFY_QUEUE_MAX: '4096',
    VERIFICATION_CACHE_MAX_ENTRIES: '0',
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    VERIFIER_MODE: MODE,
    CRYPTO_BACKEND: BACKEND,
  }),
);
interface Side {
  readonly kind: Kind;
  /** The kind, numbered from its second appearance (a control). */
  readonly label: string;
}
const SIDES: readonly Side[] = (process.env['FLOOR_VERIFIER_SIDES'] ?? 'service,threads,inline')
  .split(',')
  .map((s) => s.trim())
  .map((kind, i, all) => {
    if (!KINDS.includes(kind as Kind)) throw new Error(`FLOOR_VERIFIER_SIDES: unknown ${kind}`);
    const seen = all.slice(0, i).filter((k) => k === kind).length;
    return { kind: kind as Kind, label: seen === 0 ? kind : `${kind}#${seen + 1}` };
  });

interface Started {
  readonly url: string;
  /** The process whose quiet the raw replay waits for, and whose cores it reports. */
  readonly pid: number;
  /** Every process of the side: the cluster's children besides its primary. */
  readonly pids: () => number[];
  stop(): Promise<void>;
}

/** Children of `pid`, whichever of its threads started them (/proc/PID/task/TID/children). */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (text !== '') found.push(...text.split(/\s+/).map(Number));
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return found;
}

async function start(kind: Kind, answerFile: string): Promise<Started> {
  if (kind === 'service') {
    const { child, url } = await startService();
    return { url, pid: child.pid!, pids: () => [child.pid!], stop: () => stopService(child) };
  }
  const { child, url } = await startListening(
    SERVER,
    {
      ...FLOOR_ENV[kind],
      FLOOR_VERIFIER_WORKERS: FLOOR_WORKERS,
      FLOOR_VERIFIER_POOL: POOL_SETTINGS,
      FLOOR_ANSWER_FILE: answerFile,
    },
    // BENCH_CPU_PROF: one .cpuprofile per thread, as the service's (bench-service.ts), for P138's comparison.
    cpuProfArgs(),
  );
  const pid = child.pid!;
  const stop = async () => {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  return { url, pid, pids: () => [pid, ...childrenOf(pid)], stop };
}

/** CPU of one measured run, ms (all processes, every thread, /proc). */
interface Cpu {
  readonly total: number;
  /** The thread that reads HTTP: the main thread (inline: each child's, together). */
  readonly main: number;
  /** worker_threads (the service's pool, the floor's verifying threads); 0 inline. */
  readonly workers: number;
  /** Everything else: V8's helpers, libuv, and inline the cluster's primary. */
  readonly other: number;
  /** Inline only: the cluster's primary, every thread (part of `other`). */
  readonly primary: number;
}

function cpuOf(
  pids: readonly number[],
  before: Map<number, ThreadCpu[]>,
  after: Map<number, ThreadCpu[]>,
): Cpu {
  let main = 0;
  let workers = 0;
  let other = 0;
  let primary = 0;
  for (const [index, pid] of pids.entries()) {
    const groups = cpuByGroupMs(before.get(pid) ?? [], after.get(pid) ?? []);
    const all = [...groups.values()].reduce((a, b) => a + b, 0);
    if (index === 0 && pids.length > 1) {
      primary += all;
      other += all;
      continue;
    }
    main += groups.get('main') ?? 0;
    workers += groups.get('workers') ?? 0;
    other += all - (groups.get('main') ?? 0) - (groups.get('workers') ?? 0);
  }
  return { total: main + workers + other, main, workers, other, primary };
}

/** One side's measured run, per bundle. */
interface Run {
  readonly bundlesPerSecond: number;
  readonly cpuMs: number;
  readonly mainMs: number;
  readonly workersMs: number;
  readonly otherMs: number;
  readonly primaryMs: number;
  readonly loadgenMs: number;
  readonly rawMs: number;
  /** The replays' CPU time in this process (ms): below rawMs when other processes kept it off a core. */
  readonly rawCpuMs: number;
  readonly drift: number;
  readonly share: number;
  /** rawCpuMs ÷ cpuMs: the share with the raw cost read on the CPU clock, as the side's CPU is. */
  readonly shareCpu: number;
  readonly ratio: number;
  /** Cores kept busy over the run by processes other than the side and this one (/proc/stat). */
  readonly othersCores: number;
}

async function measureSide(
  backend: CryptoBackend,
  kind: Kind,
  json: string,
  calls: readonly SignatureCall[],
  answerFile: string,
): Promise<Run> {
  const side = await start(kind, answerFile);
  try {
    await warmUpFor(WARMUP_S, side.url, json, CONNECTIONS);
    const pids = side.pids();
    if (kind === 'inline' && pids.length !== 1 + Number(FLOOR_WORKERS))
      throw new Error(`inline: ${pids.length - 1} processes, not ${FLOOR_WORKERS}`);
    const around = await measureWithRaw(
      backend,
      calls,
      async () => {
        const before = new Map(pids.map((pid) => [pid, threadsCpu(pid)]));
        const machine0 = machineJiffies();
        const gen0 = ownCpuMs();
        const t0 = performance.now();
        const result = await autocannon({
          url: `${side.url}/verify`,
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: json,
          connections: CONNECTIONS,
          duration: DURATION_S,
        });
        const loadgen = ownCpuMs() - gen0;
        const wallMs = performance.now() - t0;
        const machine1 = machineJiffies();
        const after = new Map(pids.map((pid) => [pid, threadsCpu(pid)]));
        if (result.non2xx + result.errors > 0)
          throw new Error(`${kind}: ${result.non2xx} non-2xx, ${result.errors} errors`);
        const cpu = cpuOf(pids, before, after);
        // The machine's busy cores over the run (its jiffies count every core), less the side's and ours.
        const busyCores =
          ((machine1.busy - machine0.busy) / Math.max(1, machine1.total - machine0.total)) * CORES;
        const othersCores = busyCores - (cpu.total + loadgen) / wallMs;
        return { bundles: result['2xx'], cpu, loadgen, othersCores };
      },
      side.pid,
    );
    const { bundles, cpu, loadgen, othersCores } = around.measured;
    if (CPU_PROF_DIR) {
      // The profile covers the process's whole life, warm-up included: divide by every body it judged.
      const judged =
        kind === 'service'
          ? await bundlesJudged(side.url)
          : await (await fetch(`${side.url}/requests`)).text();
      console.log(
        `  profiled ${kind}: node bench/profile-summary.ts ${CPU_PROF_DIR} 30 --pid=${side.pid} --requests=${judged}`,
      );
    }
    const rawCpuMs = (around.before.cpuMs + around.after.cpuMs) / 2;
    const bundlesPerSecond = bundles / DURATION_S;
    const cpuMs = cpu.total / bundles;
    return {
      bundlesPerSecond,
      cpuMs,
      mainMs: cpu.main / bundles,
      workersMs: cpu.workers / bundles,
      otherMs: cpu.other / bundles,
      primaryMs: cpu.primary / bundles,
      loadgenMs: loadgen / bundles,
      rawMs: around.rawMs,
      rawCpuMs,
      drift: around.drift,
      share: around.rawMs / cpuMs,
      shareCpu: rawCpuMs / cpuMs,
      ratio: (bundlesPerSecond * around.rawMs) / (1000 * CORES),
      othersCores,
    };
  } finally {
    await side.stop();
  }
}

/** CPU ms per run of `work` in this process, over about 300 ms of wall time. */
function cpuPerRun(work: () => void): number {
  let runs = 0;
  const t0 = ownCpuMs();
  const w0 = performance.now();
  do {
    work();
    runs++;
  } while (performance.now() - w0 < 300);
  return (ownCpuMs() - t0) / runs;
}

/**
 * In this process, one thread, CPU ms per bundle, medians of 3 rounds alternating: the raw replay (core's
 * backend.verify, which also runs its Ed25519 pre-check and key-cache lookup), the floor's signatures alone
 * (bare node:crypto on the strict floor's set), the floor's whole work on the body (without HTTP), and the
 * engine's own work (JSON.parse and verify() with signatures answered at once), to hold the floor's
 * non-signature work against the engine's.
 */
function inProcess(backend: CryptoBackend, calls: readonly SignatureCall[], body: Uint8Array): string {
  if (floorVerify(body).status !== 200) throw new Error('the floor verifier refuses the bundle');
  const set = floorSignatureSet(body);
  const sides = {
    raw: () => replayRaw(backend, calls, 300).cpuMs,
    signatures: () =>
      cpuPerRun(() => {
        if (firstFailing(set) >= 0) throw new Error('a signature failed');
      }),
    whole: () => cpuPerRun(() => floorVerify(body)),
    engineOwn: () => cpuPerRun(() => instant.verify(JSON.parse(json))),
  };
  const instant = instantVerifier(backend);
  const json = new TextDecoder().decode(body);
  const names = ['raw', 'signatures', 'whole', 'engineOwn'] as const;
  const readings = {
    raw: [] as number[],
    signatures: [] as number[],
    whole: [] as number[],
    engineOwn: [] as number[],
  };
  for (let round = 0; round < 3; round++) for (const name of names) readings[name].push(sides[name]());
  const [raw, signatures, whole, engineOwn] = names.map((name) => median(readings[name])) as [
    number,
    number,
    number,
    number,
  ];
  return `in this process, one thread, CPU ms per bundle: raw replay ${raw.toFixed(3)}, the floor's signatures (bare node:crypto) ${signatures.toFixed(3)}, the floor's whole work ${whole.toFixed(3)} (without signatures ${(whole - signatures).toFixed(3)}), the engine's own work (signatures answered at once) ${engineOwn.toFixed(3)}`;
}

const fmt = (n: number, digits: number, width: number) =>
  Number.isNaN(n) ? 'n/a'.padStart(width) : n.toFixed(digits).padStart(width);
const pct = (n: number) => `${(100 * n).toFixed(1)} %`.padStart(8);

const HEADER =
  'side             round    req/s  CPU ms/verify  main ms  workers ms  other ms  (primary)  loadgen ms  raw ms  drift   share  ratio(all cores)  raw CPU ms  share(CPU)  others cores';

function line(label: string, round: string, r: Run): string {
  return `${label.padEnd(16)} ${round.padStart(5)} ${fmt(r.bundlesPerSecond, 1, 8)} ${fmt(r.cpuMs, 3, 14)} ${fmt(r.mainMs, 3, 8)} ${fmt(r.workersMs, 3, 11)} ${fmt(r.otherMs, 3, 9)} ${fmt(r.primaryMs, 3, 10)} ${fmt(r.loadgenMs, 3, 11)} ${fmt(r.rawMs, 3, 7)} ${`×${r.drift.toFixed(2)}`.padStart(6)} ${pct(r.share)} ${fmt(r.ratio, 3, 17)} ${fmt(r.rawCpuMs, 3, 11)} ${pct(r.shareCpu).padStart(11)} ${fmt(r.othersCores, 2, 13)}`;
}

function medianRun(runs: readonly Run[]): Run {
  const m = (f: (r: Run) => number) => median(runs.map(f));
  return {
    bundlesPerSecond: m((r) => r.bundlesPerSecond),
    cpuMs: m((r) => r.cpuMs),
    mainMs: m((r) => r.mainMs),
    workersMs: m((r) => r.workersMs),
    otherMs: m((r) => r.otherMs),
    primaryMs: m((r) => r.primaryMs),
    loadgenMs: m((r) => r.loadgenMs),
    rawMs: m((r) => r.rawMs),
    rawCpuMs: m((r) => r.rawCpuMs),
    drift: m((r) => r.drift),
    share: m((r) => r.share),
    shareCpu: m((r) => r.shareCpu),
    ratio: m((r) => r.ratio),
    othersCores: m((r) => r.othersCores),
  };
}

async function main(): Promise<void> {
  const backend = selectCryptoBackend(BACKEND);
  console.log(
    `floor verifier (P132): backend ${backend.name}, ${CORES} cores, ${WARMUP_S} s warm-up + ${DURATION_S} s per run, ${CONNECTIONS} connections, ${ROUNDS} round(s), sides ${SIDES.map((s) => s.label).join(' ')}, floor workers ${FLOOR_WORKERS}, VERIFIER_MODE=${MODE}`,
  );
  const answerFile = join(DATA_DIR, 'answer.json');
  try {
    for (const c of CASES) {
      const request = { signed_bundle: buildSignedBundle({ ...c.options, backend }).signed_bundle };
      const json = JSON.stringify(request);
      // The bundle's own signature calls under the bench's mode, as prepared-cases.ts records them.
      const { backend: recording, calls } = recordingBackend(backend);
      const verifier = createVerifier({ mode: MODE, backend: recording });
      if (!verifier.ok) throw new Error(verifier.error.message);
      if (!verifier.value.verify(JSON.parse(json)).verified) throw new Error(`${c.name} does not verify`);
      // The service's own answer to this bundle, which the floor verifier sends when it verifies.
      const capture = await start('service', answerFile);
      try {
        const answer = await captureAnswer(`${capture.url}/verify`, {
          contentType: 'application/json',
          accept: 'application/json',
          body: json,
        });
        if (answer.status !== 200) throw new Error(`${c.name}: the service answered ${answer.status}`);
        writeFileSync(answerFile, encodeFloorAnswer(answer));
      } finally {
        await capture.stop();
      }
      const body = new TextEncoder().encode(json);
      console.log(
        `\n${c.name}: ${body.length} bytes, ${calls.length} signatures; ${inProcess(backend, calls, body)}`,
      );
      console.log(HEADER);
      const runs = new Map<string, Run[]>(SIDES.map((s) => [s.label, []]));
      for (let round = 1; round <= ROUNDS; round++)
        for (const side of SIDES) {
          const run = await measureSide(backend, side.kind, json, calls, answerFile);
          runs.get(side.label)!.push(run);
          console.log(line(side.label, String(round), run));
        }
      console.log(`${c.name} medians over ${ROUNDS} round(s):`);
      for (const side of SIDES) console.log(line(side.label, 'med', medianRun(runs.get(side.label)!)));
      // The replays drift by tens of per cent between runs on a shared host (P114): one raw cost for every side
      // of the case, the median of all its runs', leaves the sides' shares differing by their CPU alone.
      const pooled = (raw: (r: Run) => number, name: string) => {
        const rawMs = median([...runs.values()].flat().map(raw));
        const first = medianRun(runs.get(SIDES[0]!.label)!).cpuMs;
        const sides = SIDES.map((side) => {
          const cpu = medianRun(runs.get(side.label)!).cpuMs;
          return `${side.label} ${(100 * (rawMs / cpu)).toFixed(1)} % (CPU ×${(cpu / first).toFixed(3)})`;
        });
        console.log(
          `pooled ${name} ${rawMs.toFixed(3)} ms (median of every run's), share: ${sides.join('; ')}`,
        );
      };
      pooled((r) => r.rawMs, 'raw');
      pooled((r) => r.rawCpuMs, 'raw CPU');
    }
  } finally {
    rmSync(DATA_DIR, { recursive: true, force: true });
  }
  console.log(
    [
      '',
      'CPU ms/verify = utime+stime of every thread of every process of the side (/proc) ÷ bundles answered 2xx;',
      "main = the main thread (inline: the children's main threads, which serve and verify); workers = worker_threads",
      "(the service's pool; the floor's verifying threads); other = the rest (V8 helpers, libuv; inline: the cluster",
      "primary too, shown as (primary)); loadgen = this process's CPU (autocannon) ÷ bundles; raw ms = the bundle's",
      'own verify() calls replayed on one core just before and after the run (drift = after ÷ before); share = raw ÷',
      'CPU ms/verify; ratio = bundles/s × raw ÷ (1000 × cores). The load generator shares the cores. raw CPU ms =',
      "the replays' CPU time (below raw ms when other processes took the core), share(CPU) = raw CPU ÷ CPU ms/verify;",
      "others cores = the machine's busy cores over the run (/proc/stat) less the side's and this process's.",
    ].join('\n'),
  );
}

await main();
