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
// repeated empty variant is the same-against-same control). BREAKDOWN_CASES: `elevated`, `maximum` or
// both (default). BENCH_DURATION_S: seconds per measured run (default 4); BENCH_WARMUP_S: seconds of
// load before it (default 2).
import { availableParallelism } from 'node:os';
import { type BuildOptions, buildSignedBundle, selectCryptoBackend } from '@proto/core';
import autocannon from 'autocannon';
import { launchService, serviceMain, THIS_CHECKOUT, warmUpFor } from './launch-service.ts';
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
const CONNECTIONS = 8;
const WORKERS = process.env['BENCH_WORKERS'];

interface Variant {
  readonly label: string;
  readonly flags: readonly string[];
}

const VARIANTS: readonly Variant[] = (process.env['BREAKDOWN_VARIANTS'] ?? 'default=').split(';').map((v) => {
  const at = v.indexOf('=');
  if (at < 0) throw new Error(`BREAKDOWN_VARIANTS: ${v} has no '='`);
  return {
    label: v.slice(0, at).trim(),
    flags: v
      .slice(at + 1)
      .split(' ')
      .filter((f) => f !== ''),
  };
});

const ALL_CASES: readonly { name: string; options: BuildOptions }[] = [
  { name: 'elevated-10', options: { tier: 'elevated', entries: 10 } },
  { name: 'maximum-60', options: { tier: 'maximum', entries: 60 } },
];
const wanted = (process.env['BREAKDOWN_CASES'] ?? 'elevated,maximum').split(',');
const CASES = ALL_CASES.filter((c) => wanted.some((w) => c.name.startsWith(w.trim())));

/** GC pauses of one isolate, read from --trace-gc lines over the measured part of a run. */
interface IsolateGc {
  scavenges: number;
  markCompacts: number;
  pauseMs: number;
  /** Heap after the last collection, MB. */
  lastHeapMb: number;
  /** Collections by kind and V8's reason (`Mark-Compact: external memory pressure`), P124. */
  reasons: Map<string, number>;
}

// `[pid:0xISOLATE]  1234 ms: Scavenge 5.1 (6.2) -> 4.3 (7.2) MB, pooled: 0.0 MB, 0.85 / 0.00 ms …`
const TRACE_GC =
  /^\[\d+:(0x[0-9a-f]+)\]\s+\d+ ms: ([A-Za-z-]+(?: [A-Za-z-]+)?).*?-> ([\d.]+) \([\d.]+\) MB, (?:pooled: [\d.]+ MB, )?([\d.]+) \/ [\d.]+ ms/;

class GcTrace {
  readonly isolates = new Map<string, IsolateGc>();
  #pending = '';
  counting = false;

  feed(chunk: Buffer): void {
    const lines = (this.#pending + chunk.toString('latin1')).split('\n');
    this.#pending = lines.pop() ?? '';
    for (const line of lines) {
      const m = TRACE_GC.exec(line);
      if (m === null || !this.counting) continue;
      const [, isolate = '', kind = '', heap = '0', pause = '0'] = m;
      const gc = this.isolates.get(isolate) ?? {
        scavenges: 0,
        markCompacts: 0,
        pauseMs: 0,
        lastHeapMb: 0,
        reasons: new Map<string, number>(),
      };
      // The reason follows the mutator utilisation: `… current mu = 0.98) allocation failure;`, or
      // `… current mu = 0.97) finalize incremental marking via task; GC in old space requested`.
      const reason = `${kind}: ${/current mu = [\d.]+\)\s*(.*?)[;\s]*$/.exec(line)?.[1] ?? '?'}`;
      gc.reasons.set(reason, (gc.reasons.get(reason) ?? 0) + 1);
      if (kind.startsWith('Scavenge') || kind.startsWith('Minor')) gc.scavenges += 1;
      else gc.markCompacts += 1;
      gc.pauseMs += Number(pause);
      gc.lastHeapMb = Number(heap);
      this.isolates.set(isolate, gc);
    }
  }
}

interface Run {
  readonly bundles: number;
  readonly groups: Map<string, number>;
  /** The kernel's part of each group's CPU (stime, ms) and its minor page faults (P124). */
  readonly systemMs: Map<string, number>;
  readonly minorFaults: Map<string, number>;
  readonly total: number;
  readonly peakRssMb: number;
  readonly gc: Map<string, IsolateGc>;
}

async function measure(variant: Variant, body: string): Promise<Run> {
  const trace = new GcTrace();
  const service = await launchService({
    entry: MAIN,
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
    },
  });
  const { pid } = service;
  try {
    // The JIT's warm-up, then the measured part.
    await warmUpFor(WARMUP_S, service.url, body, CONNECTIONS);
    let peakRssMb = rssMb(pid);
    const sampler = setInterval(() => {
      peakRssMb = Math.max(peakRssMb, rssMb(pid));
    }, 250);
    const before = threadsCpu(pid);
    trace.counting = true;
    const result = await autocannon({
      url: `${service.url}/verify`,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body,
      connections: CONNECTIONS,
      duration: DURATION_S,
    });
    const after = threadsCpu(pid);
    trace.counting = false;
    clearInterval(sampler);
    if (result.non2xx + result.errors > 0) throw new Error(`${result.non2xx + result.errors} failures`);
    const groups = cpuByGroupMs(before, after);
    const total = [...groups.values()].reduce((a, b) => a + b, 0);
    return {
      bundles: result['2xx'],
      groups,
      systemMs: cpuByGroupMs(before, after, (t) => t.systemMs ?? 0),
      minorFaults: cpuByGroupMs(before, after, (t) => t.minorFaults ?? 0),
      total,
      peakRssMb,
      gc: trace.isolates,
    };
  } finally {
    await service.stop();
  }
}

const fmt = (n: number, width = 8, digits = 2) => n.toFixed(digits).padStart(width);

async function main(): Promise<void> {
  const backend = selectCryptoBackend('auto');
  console.log(
    `thread breakdown: ${WARMUP_S} s warm-up and ${DURATION_S} s per run, ${CONNECTIONS} connections, ${ROUNDS} round(s), variants ${VARIANTS.map((v) => `${v.label}=[${v.flags.join(' ')}]`).join(' ')}`,
  );
  for (const c of CASES) {
    const body = JSON.stringify({
      signed_bundle: buildSignedBundle({ ...c.options, backend }).signed_bundle,
    });
    const runs = new Map<string, Run[]>(VARIANTS.map((v) => [v.label, []]));
    for (let round = 0; round < ROUNDS; round++)
      for (const variant of VARIANTS) runs.get(variant.label)!.push(await measure(variant, body));
    const groupNames = [
      ...new Set([...runs.values()].flatMap((rs) => rs.flatMap((r) => [...r.groups.keys()]))),
    ].sort();
    console.log(`\n${c.name} JSON: CPU ms per bundle by thread group (/proc), mean over rounds`);
    console.log(
      `${'variant'.padEnd(12)} ${'req/s'.padStart(8)} ${'total'.padStart(8)} ${groupNames.map((g) => g.padStart(12)).join(' ')}  ${'×total'.padStart(7)} peak RSS MB`,
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
      const reqs = rs.reduce((a, r) => a + r.bundles, 0) / rs.length / DURATION_S;
      console.log(
        `${variant.label.padEnd(12)} ${fmt(reqs, 8, 1)} ${fmt(total)} ${byGroup((r) => r.groups)}  ${fmt(total / baseTotal, 7, 3)} ${Math.max(...rs.map((r) => r.peakRssMb)).toFixed(0)}`,
      );
      console.log(
        `  each run, total ms/bundle: ${rs.map((r) => (r.total / r.bundles).toFixed(2)).join(' | ')}`,
      );
      console.log(`  ${'of which kernel ms'.padEnd(27)}${byGroup((r) => r.systemMs)}`);
      console.log(`  ${'minor page faults'.padEnd(27)}${byGroup((r) => r.minorFaults, 0)}`);
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
}

await main();
