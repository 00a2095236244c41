// Load benchmark of POST /verify and POST /verify/batch (`pnpm bench`): builder bundles per tier and
// V1, JSON and CBOR, cache off, against the raw signature cost measured in the same run, with the HTTP
// floor and the share bounds of every single-request row. Issue 14; docs/architecture.md §3 (worker pool).

import { rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { type CryptoBackend, selectCryptoBackend } from '@proto/core';
import autocannon from 'autocannon';
import { bundlesJudged, startService, stopService, warmUp } from './bench-service.ts';
import {
  BACKEND,
  BUNDLE_WARMUP_S,
  CONTENTION,
  CONTENTION_ROUNDS,
  CORES,
  CPU_PROF_DIR,
  DATA_DIR,
  DURATION_S,
  LOG_LEVEL,
  MODE,
  WORKERS,
} from './bench-settings.ts';
import { runComparisons } from './compare-services.ts';
import { measureContention } from './contention-replay.ts';
import { signatureCosts } from './engine-cases.ts';
import { measureFloors } from './floor-rows.ts';
import { FLOOR_HEADER } from './http-floor.ts';
import { overBodyLimit, type Prepared, prepare, printPrepared } from './prepared-cases.ts';
import { rssMb } from './proc-stats.ts';
import { isUnsteady, measureWithRaw, type RawAround, traceLine, waitForQuiet } from './raw-replay.ts';
import { type Measured, measure } from './row-measure.ts';
import { ACCOUNT_HEADER, accountRow, loadsOf, row } from './row-tables.ts';
import {
  BOUNDS_EXPLAINED,
  BOUNDS_HEADER,
  boundRow,
  bundleWireOfMode,
  type HttpFloor,
  measureProtocolFloors,
  type RawContention,
  type RowCost,
  shareBounds,
} from './share-bounds.ts';

/** Extra runs of a row whose raw cost moved over 10 % between before and after (0: none, as before P114). */
const DRIFT_RETRIES = Number(process.env['BENCH_DRIFT_RETRIES'] ?? 2);
/** 1: a line per row run with what else the machine did while the raw cost was replayed. */
const RAW_TRACE = process.env['BENCH_RAW_TRACE'] === '1';

/**
 * A row measured with its raw cost around it, again (up to DRIFT_RETRIES times) while the host's speed
 * moved between the two replays: the row kept is the last, steady or not.
 */
async function measureSteadily(
  backend: CryptoBackend,
  p: Prepared,
  mode: string,
  run: () => Promise<Measured>,
  pid: number,
): Promise<{ around: RawAround<Measured>; attempts: number }> {
  for (let attempts = 1; ; attempts++) {
    const around = await measureWithRaw(backend, p.calls, run, pid);
    if (RAW_TRACE) console.log(traceLine(p.name, mode, attempts, around));
    if (!isUnsteady(around.drift) || attempts > DRIFT_RETRIES) return { around, attempts };
  }
}

function driftNote(around: RawAround<unknown>, attempts: number): string {
  return [
    isUnsteady(around.drift) ? '  *' : '',
    attempts > 1 ? `  (${attempts} runs)` : '',
    around.quietAfter ? '' : '  service busy',
  ].join('');
}

/** A V2 bundle's k after its rows, the service quiet: its calls on two threads at once ÷ on one (P127). */
async function rawContentionOf(p: Prepared, pid: number): Promise<RawContention> {
  await waitForQuiet(pid);
  const rounds = CONTENTION_ROUNDS;
  const options = { rounds, maxRounds: 3 * rounds, windowMs: 300, spin: false, preference: BACKEND };
  const c = await measureContention(p.calls, options);
  if (RAW_TRACE)
    console.log(
      `  raw ×both cores ${p.name}: one ${c.oneMs.toFixed(2)} ms, both ${c.bothMs.toFixed(2)} ms, k ${c.k.toFixed(3)}, ${c.rounds.length} of ${c.measured.length} rounds undisturbed`,
    );
  return { name: p.name, k: c.k };
}

/** The fourth table: each row's share and ratio bounds from this run's floors (share-bounds.ts). */
function printShareBounds(
  backend: CryptoBackend,
  prepared: readonly Prepared[],
  rowCosts: readonly RowCost[],
  httpFloors: readonly HttpFloor[],
  contention: readonly RawContention[],
): void {
  const v2 = prepared.filter((p) => !p.v1);
  const wanted = rowCosts.flatMap((r) => {
    const wire = bundleWireOfMode(r.mode);
    return wire !== undefined && v2.some((p) => p.name === r.name) ? [{ name: r.name, wire }] : [];
  });
  if (wanted.length === 0 || httpFloors.length === 0) return;
  const bounds = shareBounds(rowCosts, httpFloors, measureProtocolFloors(backend, v2, wanted), contention);
  console.log(`\n${BOUNDS_EXPLAINED}`);
  console.log(BOUNDS_HEADER);
  for (const bound of bounds) console.log(boundRow(bound));
}

async function main(): Promise<void> {
  const backend = selectCryptoBackend(BACKEND);
  console.log(
    `verification benchmark: backend ${backend.name}, ${CORES} cores, ${DURATION_S} s per run, cache off, rate limit off, LOG_LEVEL=${LOG_LEVEL}, VERIFIER_MODE=${MODE}, VERIFY_WORKERS=${WORKERS ?? 'default'}`,
  );
  const costs = signatureCosts(backend, () => performance.now());
  for (const [alg, ms] of costs)
    console.log(
      `  raw ${alg} verify: ${(ms * 1000).toFixed(1)} µs (one core, 600-byte message; for scale only)`,
    );
  const prepared = prepare(backend);
  printPrepared(prepared);

  const { child, url } = await startService();
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
  const httpFloors: HttpFloor[] = [];
  const rowCosts: RowCost[] = [];
  const contention: RawContention[] = [];
  try {
    const first = prepared.find((p) => !overBodyLimit(p));
    if (first !== undefined && process.env['BENCH_TABLE'] !== 'skip')
      await warmUp(url, first.json, connections);
    for (const p of process.env['BENCH_TABLE'] === 'skip' ? [] : prepared) {
      if (overBodyLimit(p)) {
        console.log(`${p.name.padEnd(19)} (over the 1 MB body limit: HTTP 413; in-process figures above)`);
        continue;
      }
      if (p !== first) await warmUp(url, p.json, connections, BUNDLE_WARMUP_S);
      for (const [mode, load] of loadsOf(p, batchAvailable)) {
        const { around, attempts } = await measureSteadily(
          backend,
          p,
          mode,
          () => measure(pid, url, load, load.perRequest > 1 ? 2 : connections),
          pid,
        );
        const { measured: m, rawMs, drift } = around;
        console.log(
          `${row({ ...p, rawMs }, mode, m)} ${`×${drift.toFixed(2)}`.padStart(9)}${driftNote(around, attempts)}`,
        );
        accounts.push(accountRow({ ...p, rawMs }, mode, m));
        rowCosts.push({
          name: p.name,
          mode,
          rawMs,
          cpuMs: m.cpuPerBundle,
          loadgenMs: m.loadgenPerBundle,
          perRequest: load.perRequest,
          ratio: (m.bundlesPerSecond * rawMs) / (1000 * CORES),
        });
        if (load.perRequest === 1) {
          const measuredFloors = await measureFloors(p, mode, url, load, m, connections);
          floors.push(...measuredFloors.lines);
          httpFloors.push(...measuredFloors.floors);
        }
      }
      if (CONTENTION && !p.v1) contention.push(await rawContentionOf(p, pid));
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
    printShareBounds(backend, prepared, rowCosts, httpFloors, contention);
    const heaviest =
      prepared.find((p) => p.name.startsWith('v2 maximum (60)')) ?? prepared.find((p) => !overBodyLimit(p));
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
  await runComparisons(backend, prepared, connections);
  rmSync(DATA_DIR, { recursive: true, force: true });
  console.log(
    [
      '',
      'CPU ms/verify = utime+stime of the service process (all threads, /proc/PID/stat) ÷ bundles answered 2xx;',
      "raw ms = the bundle's own verify() calls replayed on one core (same keys, messages, signatures), taken just\nbefore each row and just after it once the service is quiet (raw drift = after ÷ before; a row whose raw cost moved\nover 10 % is measured again, up to BENCH_DRIFT_RETRIES times, and `(n runs)` says so; * = still moved over 10 %: the\nhost's speed changed during the row, so its share is not exact; `service busy` = the service had not gone quiet\nwithin 5 s); share = raw ms ÷ CPU ms/verify; ratio = bundles/s ÷ (cores ÷ raw ms). The load generator shares the cores.",
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
