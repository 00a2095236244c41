// Where the verification service's CPU per bundle goes by thread (main, pool workers, V8 helper threads,
// libuv…), read from /proc/PID/task/*, under a short autocannon load; and, with --trace-gc in a variant,
// the GC pauses of every isolate (the main one and each pool thread's). Variants of the service's Node
// command line run alternating (A B A B…), so a GC flag can be compared against a control. Issue 14; P112.
//
//   pnpm exec node bench/thread-breakdown.ts
//   BREAKDOWN_VARIANTS='default=;again=;single=--single-threaded-gc' BREAKDOWN_ROUNDS=3 \
//     flock /work/notes/bench.lock pnpm exec node bench/thread-breakdown.ts
//
// BREAKDOWN_VARIANTS: `label=node flags` separated by `;` (flags separated by spaces; empty: none; a
// repeated empty variant is the same-against-same control); `label@CHECKOUT=flags` runs the service of
// another checkout (a worktree of main as the base and a separate copy of it as the control, P130).
// BREAKDOWN_CASES: `routine`, `elevated`, `maximum`, comma-separated (default elevated,maximum).
// BREAKDOWN_LOAD: `json` (POST /verify, default), `cbor` (POST /verify in CBOR both ways), `ndjson` or `cbor-seq`
// (POST /verify/batch, 64 bundles a request on 2 connections, a fixed number of whole batches as
// bench/load-plan.ts sends them, P91); several, comma-separated, alternate within each round (P531: JSON
// against CBOR in one run).
// BENCH_DURATION_S: seconds per measured run of single requests (default 4); BREAKDOWN_BATCHES: batches
// per measured batch run (default 24); BENCH_WARMUP_S: seconds of /verify JSON load before it (default 2), with
// the measured case's bundle, or BREAKDOWN_WARMUP_CASE's (`routine`, `standard`…: the service has just served
// another bundle, as the first row of a bundle in bench/run.ts has; P531).
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { type BuildOptions, buildSignedBundle, selectCryptoBackend } from '@proto/core';
import { encodeCbor } from '@proto/service-kit/cbor';
import autocannon from 'autocannon';
import { GcTrace, type IsolateGc } from './gc-trace.ts';
import {
  launchService,
  parseVariants,
  serviceMain,
  THIS_CHECKOUT,
  type Variant,
  warmUpFor,
} from './launch-service.ts';
import { cpuByGroupMs, rssMb, threadsCpu } from './proc-stats.ts';

const MAIN = serviceMain(THIS_CHECKOUT, 'verification');
const DURATION_S = Number(process.env['BENCH_DURATION_S'] ?? 4);
const ROUNDS = Number(process.env['BREAKDOWN_ROUNDS'] ?? 1);
/**
 * Seconds of load before the measured part (launch-service.ts, warmUpFor). V8 is still tiering functions up
 * (Maglev, then TurboFan, on its helper threads) after hundreds of verifications, so a short warm-up charges
 * JIT work to "other".
 */
const WARMUP_S = Number(process.env['BENCH_WARMUP_S'] ?? 2);
const WORKERS = process.env['BENCH_WORKERS'];
const LOADS = (process.env['BREAKDOWN_LOAD'] ?? 'json').split(',').map((l) => l.trim());
for (const load of LOADS)
  if (!['json', 'cbor', 'ndjson', 'cbor-seq'].includes(load))
    throw new Error(`BREAKDOWN_LOAD: unknown ${load}`);
const BATCH_ITEMS = 64;
const BATCHES = Number(process.env['BREAKDOWN_BATCHES'] ?? 24);
/** As bench/run.ts: 8 connections for single requests, 2 for batches (BREAKDOWN_CONNECTIONS: other). */
const connectionsFor = (load: Load): number =>
  Number(process.env['BREAKDOWN_CONNECTIONS'] ?? (load.perRequest > 1 ? 2 : 8));

const VARIANTS = parseVariants(process.env['BREAKDOWN_VARIANTS'] ?? 'default=', 'BREAKDOWN_VARIANTS');

/** What one measured run sends: the body, its content type, and the bundles a request carries. */
interface Load {
  readonly name: string;
  readonly path: string;
  readonly contentType: string;
  readonly body: string | Buffer;
  readonly perRequest: number;
}

function loadOf(name: string, request: { signed_bundle: unknown }): Load {
  const json = JSON.stringify(request);
  if (name === 'ndjson')
    return {
      name,
      path: '/verify/batch',
      contentType: 'application/x-ndjson',
      body: `${json}\n`.repeat(BATCH_ITEMS),
      perRequest: BATCH_ITEMS,
    };
  if (name === 'cbor')
    return {
      name,
      path: '/verify',
      contentType: 'application/cbor',
      body: Buffer.from(encodeCbor(request)),
      perRequest: 1,
    };
  if (name === 'cbor-seq') {
    const item = Buffer.from(encodeCbor(request));
    return {
      name,
      path: '/verify/batch',
      contentType: 'application/cbor-seq',
      body: Buffer.concat(Array.from({ length: BATCH_ITEMS }, () => item)),
      perRequest: BATCH_ITEMS,
    };
  }
  return { name, path: '/verify', contentType: 'application/json', body: json, perRequest: 1 };
}

const ALL_CASES: readonly { name: string; options: BuildOptions }[] = [
  { name: 'routine-10', options: { tier: 'routine', entries: 10 } },
  { name: 'standard-10', options: { tier: 'standard', entries: 10 } },
  { name: 'elevated-10', options: { tier: 'elevated', entries: 10 } },
  { name: 'maximum-60', options: { tier: 'maximum', entries: 60 } },
];
const wanted = (process.env['BREAKDOWN_CASES'] ?? 'elevated,maximum').split(',');
const CASES = ALL_CASES.filter((c) => wanted.some((w) => c.name.startsWith(w.trim())));
const WARMUP_CASE = ALL_CASES.find((c) => c.name.startsWith(process.env['BREAKDOWN_WARMUP_CASE'] ?? '-'));

interface Run {
  readonly bundles: number;
  readonly bundlesPerSecond: number;
  readonly groups: Map<string, number>;
  /** The kernel's part of each group's CPU (stime, ms) and its minor page faults (P124). */
  readonly systemMs: Map<string, number>;
  readonly minorFaults: Map<string, number>;
  /** Each group's context switches (P551). */
  readonly switches: Map<string, number>;
  readonly total: number;
  readonly peakRssMb: number;
  /** Cores the service kept busy over the measured wall time, and the machine's idle and steal cores (P130). */
  readonly serviceCores: number;
  readonly idleCores: number;
  readonly stealCores: number;
  readonly gc: Map<string, IsolateGc>;
}

async function measure(variant: Variant, warmUpBody: string, load: Load): Promise<Run> {
  const trace = new GcTrace();
  const service = await launchService({
    entry: variant.checkout === undefined ? MAIN : serviceMain(variant.checkout, 'verification'),
    ...(variant.checkout === undefined ? {} : { cwd: variant.checkout }),
    nodeFlags: variant.flags,
    onStdout: (chunk) => trace.feed(chunk),
    name: 'the verification service',
    env: {
      LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'info',
      ...(WORKERS === undefined ? {} : { VERIFY_WORKERS: WORKERS }),
      // Every pool thread alive for the whole run: a thread that ended mid-run would lose its CPU.
      VERIFY_WORKERS_MIN: WORKERS ?? String(availableParallelism()),
      VERIFY_QUEUE_MAX: '4096',
      VERIFICATION_CACHE_MAX_ENTRIES: '0',
      VERIFY_RATE_LIMIT_PER_MINUTE: '0',
      ...variant.env,
    },
  });
  const { pid } = service;
  try {
    // The JIT's warm-up, then the measured part.
    await warmUpFor(WARMUP_S, service.url, warmUpBody, 8);
    const request = {
      url: `${service.url}${load.path}`,
      method: 'POST' as const,
      headers: { 'content-type': load.contentType, accept: load.contentType },
      body: load.body,
      connections: connectionsFor(load),
    };
    // A batch run sends whole batches, every one answered (P91), after one per connection unmeasured.
    const batch = load.perRequest > 1;
    if (batch) await autocannon({ ...request, amount: request.connections });
    let peakRssMb = rssMb(pid);
    const sampler = setInterval(() => {
      peakRssMb = Math.max(peakRssMb, rssMb(pid));
    }, 250);
    const before = threadsCpu(pid);
    const machine0 = machineTicks();
    trace.counting = true;
    const t0 = performance.now();
    // autocannon settles an `amount` on its next one-second tick, the service idle meanwhile: a batch run is
    // timed to its last answer, and the machine's idle time read there (P101's fix in load-plan.ts).
    let lastAnswer = t0;
    let machine1 = machine0;
    const running = autocannon(
      batch ? { ...request, amount: BATCHES } : { ...request, duration: DURATION_S },
    );
    if (batch)
      running.on('response', () => {
        lastAnswer = performance.now();
        machine1 = machineTicks();
      });
    const result = await running;
    const after = threadsCpu(pid);
    if (!batch) {
      lastAnswer = performance.now();
      machine1 = machineTicks();
    }
    const wallS = (lastAnswer - t0) / 1000;
    trace.counting = false;
    clearInterval(sampler);
    if (result.non2xx + result.errors > 0) throw new Error(`${result.non2xx + result.errors} failures`);
    const groups = cpuByGroupMs(before, after);
    const total = [...groups.values()].reduce((a, b) => a + b, 0);
    return {
      bundles: result['2xx'] * load.perRequest,
      bundlesPerSecond: (result['2xx'] * load.perRequest) / (batch ? wallS : DURATION_S),
      groups,
      systemMs: cpuByGroupMs(before, after, (t) => t.systemMs ?? 0),
      minorFaults: cpuByGroupMs(before, after, (t) => t.minorFaults ?? 0),
      switches: cpuByGroupMs(before, after, (t) => t.switches ?? 0),
      total,
      peakRssMb,
      serviceCores: total / (wallS * 1000),
      idleCores: (machine1.idle - machine0.idle) / TICKS / wallS,
      stealCores: (machine1.steal - machine0.steal) / TICKS / wallS,
      gc: trace.isolates,
    };
  } finally {
    await service.stop();
  }
}

/** USER_HZ of /proc/stat (100 on every Linux we run on). */
const TICKS = 100;

/** The machine's idle (idle + iowait) and steal ticks so far, all cores (/proc/stat's `cpu` line). */
function machineTicks(): { idle: number; steal: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { idle: (fields[3] ?? 0) + (fields[4] ?? 0), steal: fields[7] ?? 0 };
}

const fmt = (n: number, width = 8, digits = 2) => n.toFixed(digits).padStart(width);

async function main(): Promise<void> {
  const backend = selectCryptoBackend('auto');
  console.log(
    `thread breakdown: ${WARMUP_S} s warm-up, ${DURATION_S} s a single-request run or ${BATCHES} batches of ${BATCH_ITEMS} a batch run, loads ${LOADS.join(', ')}, warm-up ${WARMUP_CASE?.name ?? 'the case itself'}, ${ROUNDS} round(s), variants ${VARIANTS.map((v) => `${v.label}${v.checkout === undefined ? '' : `@${v.checkout}`}=[${v.flags.join(' ')}]`).join(' ')}`,
  );
  for (const c of CASES) {
    const request = { signed_bundle: buildSignedBundle({ ...c.options, backend }).signed_bundle };
    const loads = LOADS.map((name) => loadOf(name, request));
    const warmUpBody = JSON.stringify(
      WARMUP_CASE === undefined
        ? request
        : { signed_bundle: buildSignedBundle({ ...WARMUP_CASE.options, backend }).signed_bundle },
    );
    const runsOf = new Map(loads.map((l) => [l, new Map<string, Run[]>(VARIANTS.map((v) => [v.label, []]))]));
    for (let round = 0; round < ROUNDS; round++)
      for (const load of loads)
        for (const variant of VARIANTS)
          runsOf
            .get(load)!
            .get(variant.label)!
            .push(await measure(variant, warmUpBody, load));
    for (const [load, runs] of runsOf) report(c.name, load, runs);
  }
}

function report(caseName: string, load: Load, runs: ReadonlyMap<string, Run[]>): void {
  const groupNames = [
    ...new Set([...runs.values()].flatMap((rs) => rs.flatMap((r) => [...r.groups.keys()]))),
  ].sort();
  console.log(`\n${caseName} ${load.name}: CPU ms per bundle by thread group (/proc), mean over rounds`);
  console.log(
    `${'variant'.padEnd(12)} ${'bundles/s'.padStart(8)} ${'total'.padStart(8)} ${groupNames.map((g) => g.padStart(12)).join(' ')}  ${'×total'.padStart(7)} peak RSS MB`,
  );
  let baseTotal = Number.NaN;
  for (const variant of VARIANTS) {
    const rs = runs.get(variant.label)!;
    const perBundle = (f: (r: Run) => number) => rs.reduce((a, r) => a + f(r) / r.bundles, 0) / rs.length;
    // One column a thread group: `of` picks the run's figures by group.
    const byGroup = (of: (r: Run) => ReadonlyMap<string, number>, digits = 2) =>
      groupNames
        .map((g) =>
          fmt(
            perBundle((r) => of(r).get(g) ?? 0),
            12,
            digits,
          ),
        )
        .join(' ');
    const total = perBundle((r) => r.total);
    if (Number.isNaN(baseTotal)) baseTotal = total;
    const reqs = rs.reduce((a, r) => a + r.bundlesPerSecond, 0) / rs.length;
    console.log(
      `${variant.label.padEnd(12)} ${fmt(reqs, 8, 1)} ${fmt(total)} ${byGroup((r) => r.groups)}  ${fmt(total / baseTotal, 7, 3)} ${Math.max(...rs.map((r) => r.peakRssMb)).toFixed(0)}`,
    );
    console.log(
      `  each run, total ms/bundle (bundles/s): ${rs.map((r) => `${(r.total / r.bundles).toFixed(2)} (${r.bundlesPerSecond.toFixed(0)})`).join(' | ')}`,
    );
    // Each run's groups as well as the mean: a change to one thread group is judged round by round.
    for (const g of groupNames.filter((name) =>
      rs.some((r) => (r.groups.get(name) ?? 0) / r.bundles >= 0.005),
    ))
      console.log(
        `  each run, ${g} ms/bundle: ${rs.map((r) => ((r.groups.get(g) ?? 0) / r.bundles).toFixed(2)).join(' | ')}`,
      );
    console.log(
      `  cores busy: service ${rs.map((r) => r.serviceCores.toFixed(2)).join(' | ')}; machine idle ${rs.map((r) => r.idleCores.toFixed(2)).join(' | ')}; steal ${rs.map((r) => r.stealCores.toFixed(2)).join(' | ')}`,
    );
    console.log(`  ${'of which kernel ms'.padEnd(27)}${byGroup((r) => r.systemMs)}`);
    console.log(`  ${'minor page faults'.padEnd(27)}${byGroup((r) => r.minorFaults, 0)}`);
    console.log(`  ${'context switches'.padEnd(27)}${byGroup((r) => r.switches, 2)}`);
    for (const [i, r] of rs.entries()) {
      if (r.gc.size === 0) continue;
      const pauses = [...r.gc.values()].reduce((a, gc) => a + gc.pauseMs, 0);
      console.log(`  round ${i + 1} GC pauses, all isolates: ${(pauses / r.bundles).toFixed(3)} ms/bundle`);
      console.log(`  round ${i + 1} GC by isolate (--trace-gc; pause = time on the isolate's own thread):`);
      for (const [isolate, gc] of [...r.gc].sort((a, b) => b[1].pauseMs - a[1].pauseMs))
        console.log(
          `    ${isolate.padEnd(16)} scavenges ${String(gc.scavenges).padStart(5)}  mark-compacts ${String(gc.markCompacts).padStart(3)}  pause ${fmt(gc.pauseMs / r.bundles, 6, 3)} ms/bundle  heap after last ${gc.lastHeapMb.toFixed(1)} MB`,
        );
      for (const [isolate, gc] of r.gc)
        console.log(
          `    ${isolate.padEnd(16)} ${[...gc.reasons].map(([reason, n]) => `${reason} ×${n}`).join(', ')}`,
        );
    }
  }
}

await main();
