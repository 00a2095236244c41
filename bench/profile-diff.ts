// Two or more processes' worker threads, function by function (P138, issue 14): the self time of every
// function in the verifying threads' .cpuprofile files (BENCH_CPU_PROF, one file per thread), as a share of
// the threads' busy samples, turned into CPU ms per bundle with the /proc figure the bench printed for the
// same run (the threads' CPU ÷ bundles). The profiler samples by the clock, so a share of busy samples, not a
// sample's time, is what carries over to CPU on shared cores (P86, P92). Samples of the first --skip-s seconds
// of each thread (start-up, the JIT's first tiers, the warm-up's start) are left out.
//
//   node bench/profile-diff.ts DIR label=PID:WORKERS_MS label=PID:WORKERS_MS … [--skip-s=4] [--top=40]
//
// A side written label=PID:MS:main takes that process's main thread instead (a one-thread run such as
// bench/engine-interleave.ts under `node --cpu-prof`, MS its CPU per bundle); a trailing @S leaves out that
// side's first S seconds instead of --skip-s's.
//
// The first side is the reference: every other side's rows are printed with their difference from it,
// categories first, then the functions whose ms per bundle differ most.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  accountProfile,
  CATEGORIES,
  type Category,
  type CpuProfile,
  type ThreadAccount,
  threadOfFile,
} from './profile-categories.ts';

/** The profile without the samples of its first `skipUs` microseconds. */
export function trimmedProfile(profile: CpuProfile, skipUs: number): CpuProfile {
  let at = 0;
  let index = 0;
  while (index < profile.samples.length && at < skipUs) at += profile.timeDeltas[index++] ?? 0;
  return {
    ...profile,
    samples: profile.samples.slice(index),
    timeDeltas: profile.timeDeltas.slice(index),
  };
}

/** CPU ms per bundle of every function (`label\0category`) and category: busy share × the /proc figure. */
export interface SideCost {
  readonly byCategory: ReadonlyMap<Category, number>;
  readonly byFunction: ReadonlyMap<string, number>;
  readonly busyShare: number;
}

export function sideCost(accounts: readonly ThreadAccount[], workersMs: number): SideCost {
  let total = 0;
  let idle = 0;
  const categoryUs = new Map<Category, number>();
  const functionUs = new Map<string, number>();
  for (const a of accounts) {
    total += a.totalUs;
    idle += a.byCategory.get('idle') ?? 0;
    for (const [c, us] of a.byCategory) if (c !== 'idle') categoryUs.set(c, (categoryUs.get(c) ?? 0) + us);
    for (const [f, v] of a.byFunction)
      if (v.category !== 'idle') functionUs.set(f, (functionUs.get(f) ?? 0) + v.us);
  }
  const busy = Math.max(1, total - idle);
  const toMs = (us: number) => (us / busy) * workersMs;
  return {
    byCategory: new Map([...categoryUs].map(([c, us]) => [c, toMs(us)])),
    byFunction: new Map([...functionUs].map(([f, us]) => [f, toMs(us)])),
    busyShare: busy / Math.max(1, total),
  };
}

function main(): void {
  const args = process.argv.slice(2);
  const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const [dir, ...specs] = args.filter((a) => !a.startsWith('--'));
  if (dir === undefined || specs.length < 2)
    throw new Error('usage: node bench/profile-diff.ts DIR label=PID:WORKERS_MS label=PID:WORKERS_MS …');
  const skipUs = Number(flag('skip-s') ?? 4) * 1e6;
  const top = Number(flag('top') ?? 40);
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  const sides = specs.map((spec) => {
    const match = /^([^=]+)=(\d+):([\d.]+)(:main)?(?:@([\d.]+))?$/.exec(spec);
    if (match === null) throw new Error(`not label=PID:WORKERS_MS[:main][@S]: ${spec}`);
    const [, label, pid, ms, main, skip] = match as unknown as [
      string,
      string,
      string,
      string,
      string?,
      string?,
    ];
    const skipSide = skip === undefined ? skipUs : Number(skip) * 1e6;
    const accounts = files
      .filter((f) => {
        const who = threadOfFile(f);
        return who !== undefined && who.pid === pid && (main === undefined) === (who.thread !== 'main');
      })
      .map((f) =>
        accountProfile(
          trimmedProfile(JSON.parse(readFileSync(join(dir, f), 'utf8')) as CpuProfile, skipSide),
        ),
      );
    if (accounts.length === 0) throw new Error(`no worker profiles of pid ${pid} in ${dir}`);
    return { label, threads: accounts.length, cost: sideCost(accounts, Number(ms)) };
  });
  const [reference, ...others] = sides as [(typeof sides)[0], ...typeof sides];
  const num = (n: number) => n.toFixed(3).padStart(8);
  const signed = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(3)}`.padStart(8);
  console.log(
    `worker threads, CPU ms per bundle (busy share × /proc), first ${skipUs / 1e6} s of each thread left out; ${sides
      .map((s) => `${s.label}: ${s.threads} threads, busy ${(100 * s.cost.busyShare).toFixed(1)} %`)
      .join('; ')}`,
  );
  console.log(
    `\n${'category'.padEnd(26)}${sides.map((s) => s.label.padStart(10)).join('')}${others.map((s) => `Δ${s.label}`.padStart(12)).join('')}`,
  );
  for (const c of CATEGORIES) {
    if (c === 'idle') continue;
    const values = sides.map((s) => s.cost.byCategory.get(c) ?? 0);
    if (values.every((v) => v < 0.0005)) continue;
    console.log(
      `${c.padEnd(26)}${values.map((v) => `  ${num(v)}`).join('')}${values
        .slice(1)
        .map((v) => `    ${signed(v - values[0]!)}`)
        .join('')}`,
    );
  }
  for (const other of others) {
    const keys = new Set([...reference.cost.byFunction.keys(), ...other.cost.byFunction.keys()]);
    const rows = [...keys]
      .map((k) => ({
        k,
        a: reference.cost.byFunction.get(k) ?? 0,
        b: other.cost.byFunction.get(k) ?? 0,
      }))
      .sort((x, y) => Math.abs(y.b - y.a) - Math.abs(x.b - x.a))
      .slice(0, top);
    console.log(`\n${other.label} against ${reference.label}, functions by |difference| (self time):`);
    for (const { k, a, b } of rows) {
      const [name, category] = k.split('\u0000');
      console.log(`  ${num(a)} ${num(b)} ${signed(b - a)}  ${name}  [${category}]`);
    }
  }
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) main();
