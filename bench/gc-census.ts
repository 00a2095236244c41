// What the verification service allocates and collects per bundle, by thread, over a fixed number of requests:
// heap bytes allocated (V8's --trace-gc-nvp `allocated`), collections by kind, pause and helper-thread GC time,
// the process's peak RSS (VmHWM) and its CPU by thread group (/proc). Byte and collection counts hardly move with
// the machine's load, so checkouts can be compared by them on a shared machine (issue 14; P476).
//
//   GC_CENSUS_VARIANTS='start@/work/wt-gc-c12f103=;end@/work/wt-gc-2f204d2=' GC_CENSUS_ROUNDS=2 \
//     pnpm exec node bench/gc-census.ts
//
// GC_CENSUS_VARIANTS: as thread-breakdown's BREAKDOWN_VARIANTS (`label[@CHECKOUT]=node flags`, `;` between them);
// --trace-gc --trace-gc-nvp are added to every one. GC_CENSUS_CASE: routine, elevated (default) or maximum.
// GC_CENSUS_WARMUP: requests before the counted part (default 1500); GC_CENSUS_REQUESTS: counted requests (3000);
// GC_CENSUS_ENV: `K=V,K=V` set for every variant's service; BENCH_WORKERS: VERIFY_WORKERS.
// GC_CENSUS_DUMP: a file to append every service's trace lines to.
import { appendFileSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { type BuildOptions, buildSignedBundle, selectCryptoBackend } from '@proto/core';
import autocannon from 'autocannon';
import { GcNvpTrace, type ThreadGcNvp } from './gc-nvp.ts';
import { launchService, parseVariants, serviceMain, THIS_CHECKOUT, type Variant } from './launch-service.ts';
import { cpuByGroupMs, threadsCpu } from './proc-stats.ts';

const ROUNDS = Number(process.env['GC_CENSUS_ROUNDS'] ?? 1);
const WARMUP = Number(process.env['GC_CENSUS_WARMUP'] ?? 1500);
const REQUESTS = Number(process.env['GC_CENSUS_REQUESTS'] ?? 3000);
const WORKERS = process.env['BENCH_WORKERS'];
const CONNECTIONS = 8;
/** GC_CENSUS_DUMP: a file every service's standard output is appended to (its trace lines, to read over time). */
const DUMP = process.env['GC_CENSUS_DUMP'];
const EXTRA_ENV = Object.fromEntries(
  (process.env['GC_CENSUS_ENV'] ?? '')
    .split(',')
    .filter((kv) => kv.includes('='))
    .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
);

const VARIANTS = parseVariants(process.env['GC_CENSUS_VARIANTS'] ?? 'this=', 'GC_CENSUS_VARIANTS');

const CASES: Record<string, BuildOptions> = {
  routine: { tier: 'routine', entries: 10 },
  elevated: { tier: 'elevated', entries: 10 },
  maximum: { tier: 'maximum', entries: 60 },
};
const CASE = process.env['GC_CENSUS_CASE'] ?? 'elevated';

interface Census {
  readonly bundles: number;
  /** Thread 0 is the main thread; the others, the pool's threads (added up as `workers`). */
  readonly threads: Map<number, ThreadGcNvp>;
  readonly cpu: Map<string, number>;
  /** VmHWM at the end (the process's peak RSS since it started) and VmRSS then, MB. */
  readonly peakRssMb: number;
  readonly endRssMb: number;
}

function statusMb(pid: number, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

async function census(variant: Variant, body: string): Promise<Census> {
  const trace = new GcNvpTrace();
  const service = await launchService({
    entry: serviceMain(variant.checkout ?? THIS_CHECKOUT, 'verification'),
    ...(variant.checkout === undefined ? {} : { cwd: variant.checkout }),
    nodeFlags: ['--trace-gc', '--trace-gc-nvp', ...variant.flags],
    onStdout: (chunk) => {
      trace.feed(chunk);
      if (DUMP !== undefined) appendFileSync(DUMP, chunk);
    },
    name: `the verification service (${variant.label})`,
    env: {
      LOG_LEVEL: 'info',
      ...(WORKERS === undefined ? {} : { VERIFY_WORKERS: WORKERS }),
      VERIFY_WORKERS_MIN: WORKERS ?? String(availableParallelism()),
      VERIFY_QUEUE_MAX: '4096',
      VERIFICATION_CACHE_MAX_ENTRIES: '0',
      VERIFY_RATE_LIMIT_PER_MINUTE: '0',
      ...EXTRA_ENV,
      ...variant.env,
    },
  });
  try {
    const request = {
      url: `${service.url}/verify`,
      method: 'POST' as const,
      headers: { 'content-type': 'application/json' },
      body,
      connections: CONNECTIONS,
    };
    const warm = await autocannon({ ...request, amount: WARMUP });
    if (warm.non2xx + warm.errors > 0) throw new Error(`warm-up: ${warm.non2xx + warm.errors} failures`);
    const before = threadsCpu(service.pid);
    trace.counting = true;
    const result = await autocannon({ ...request, amount: REQUESTS });
    trace.counting = false;
    const after = threadsCpu(service.pid);
    if (result.non2xx + result.errors > 0) throw new Error(`${result.non2xx + result.errors} failures`);
    return {
      bundles: result['2xx'],
      threads: trace.threads,
      cpu: cpuByGroupMs(before, after),
      peakRssMb: statusMb(service.pid, 'VmHWM'),
      endRssMb: statusMb(service.pid, 'VmRSS'),
    };
  } finally {
    await service.stop();
  }
}

const fmt = (n: number, width = 8, digits = 2) => n.toFixed(digits).padStart(width);

/** The pool's threads added up into one. */
function workersOf(threads: Map<number, ThreadGcNvp>): ThreadGcNvp {
  const sum: ThreadGcNvp = {
    kinds: new Map(),
    allocatedBytes: 0,
    promotedBytes: 0,
    pauseMs: 0,
    backgroundMs: 0,
    lastObjectBytes: 0,
  };
  for (const [id, t] of threads) {
    if (id === 0) continue;
    for (const [k, n] of t.kinds) sum.kinds.set(k, (sum.kinds.get(k) ?? 0) + n);
    sum.allocatedBytes += t.allocatedBytes;
    sum.promotedBytes += t.promotedBytes;
    sum.pauseMs += t.pauseMs;
    sum.backgroundMs += t.backgroundMs;
    sum.lastObjectBytes += t.lastObjectBytes;
  }
  return sum;
}

function line(label: string, t: ThreadGcNvp | undefined, bundles: number): string {
  if (t === undefined) return `    ${label.padEnd(8)} no collections`;
  const per = (n: number) => n / bundles;
  const kinds = [...t.kinds]
    .sort()
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return `    ${label.padEnd(8)} alloc ${fmt(per(t.allocatedBytes) / 1024, 8, 1)} KB/bundle  promoted ${fmt(per(t.promotedBytes) / 1024, 6, 1)} KB/bundle  pause ${fmt(per(t.pauseMs), 6, 3)} ms/bundle  helper GC ${fmt(per(t.backgroundMs), 6, 3)} ms/bundle  live after last ${fmt(t.lastObjectBytes / 2 ** 20, 6, 1)} MB  (${kinds})`;
}

/**
 * A pool thread promoting more than this per bundle it verified is in the state P476 found: some objects of every
 * bundle outlive two scavenges (the others promote under 1 KB a bundle).
 */
const PROMOTING_KB = 10;

async function main(): Promise<void> {
  const options = CASES[CASE];
  if (options === undefined) throw new Error(`GC_CENSUS_CASE: unknown ${CASE}`);
  const bundle = buildSignedBundle({ ...options, backend: selectCryptoBackend('auto') }).signed_bundle;
  const body = JSON.stringify({ signed_bundle: bundle });
  console.log(
    `gc census: ${CASE} JSON (${body.length} bytes), ${WARMUP} warm-up + ${REQUESTS} counted requests, ${CONNECTIONS} connections, ${ROUNDS} round(s), variants ${VARIANTS.map((v) => `${v.label}${v.checkout === undefined ? '' : `@${v.checkout}`}=[${v.flags.join(' ')}]`).join(' ')}`,
  );
  const promoting = new Map(VARIANTS.map((v) => [v.label, { threads: 0, of: 0, runs: 0 }]));
  for (let round = 1; round <= ROUNDS; round++)
    for (const variant of VARIANTS) {
      const c = await census(variant, body);
      const tally = promoting.get(variant.label)!;
      const pool = [...c.threads].filter(([id]) => id !== 0);
      // Per bundle that thread verified: its share of the bundles, by its share of the pool's allocation.
      const allocated = pool.reduce((a, [, t]) => a + t.allocatedBytes, 0);
      const bad = pool.filter(
        ([, t]) => t.promotedBytes / 1024 / (c.bundles * (t.allocatedBytes / allocated)) > PROMOTING_KB,
      ).length;
      tally.threads += bad;
      tally.of += pool.length;
      if (bad > 0) tally.runs += 1;
      const cpu = [...c.cpu]
        .filter(([, ms]) => ms / c.bundles >= 0.005)
        .sort()
        .map(([g, ms]) => `${g} ${(ms / c.bundles).toFixed(2)}`)
        .join(', ');
      console.log(
        `round ${round} ${variant.label}: ${c.bundles} bundles, peak RSS ${c.peakRssMb.toFixed(0)} MB, RSS at end ${c.endRssMb.toFixed(0)} MB; CPU ms/bundle ${cpu}`,
      );
      console.log(line('main', c.threads.get(0), c.bundles));
      console.log(line('workers', workersOf(c.threads), c.bundles));
      // Each pool thread too: a change may show in one thread's collections only (P476).
      for (const [id, t] of [...c.threads].sort((a, b) => a[0] - b[0]))
        if (id !== 0) console.log(line(`  #${id}`, t, c.bundles));
    }
  console.log(`\npool threads promoting over ${PROMOTING_KB} KB per bundle they verified:`);
  for (const [label, t] of promoting)
    console.log(`  ${label.padEnd(12)} ${t.threads} of ${t.of} threads, in ${t.runs} of ${ROUNDS} runs`);
}

await main();
