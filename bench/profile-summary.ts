// Summarises the .cpuprofile files `BENCH_CPU_PROF=dir pnpm bench` leaves behind: per process and
// thread, the time in each category (bench/profile-categories.ts) as a share of the thread's time and,
// given the bundles the service verified, in ms per bundle; then the heaviest functions. Issue 14.
// Usage: node bench/profile-summary.ts DIR [top=20] [--requests=N] [--pid=PID]
// (bench/run.ts prints the pid and the bundle count of the service it profiled.)
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

const args = process.argv.slice(2);
const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const [dir, topText] = args.filter((a) => !a.startsWith('--'));
if (!dir) throw new Error('usage: node bench/profile-summary.ts DIR [top] [--requests=N] [--pid=PID]');
const top = Number(topText ?? 20);
const requests = flag('requests') === undefined ? undefined : Number(flag('requests'));
const onlyPid = flag('pid');

const pct = (part: number, whole: number) =>
  `${((100 * part) / Math.max(whole, 1)).toFixed(1).padStart(5)} %`;
const perRequest = (us: number) =>
  requests === undefined ? '' : `${(us / 1000 / requests).toFixed(3).padStart(9)} ms/bundle`;

function printAccount(title: string, account: ThreadAccount): void {
  const idle = account.byCategory.get('idle') ?? 0;
  console.log(
    `\n${title}: ${(account.totalUs / 1e6).toFixed(1)} s sampled, busy ${pct(account.totalUs - idle, account.totalUs)}`,
  );
  for (const category of CATEGORIES) {
    const us = account.byCategory.get(category) ?? 0;
    if (us === 0) continue;
    console.log(`  ${category.padEnd(26)} ${pct(us, account.totalUs)} ${perRequest(us)}`);
  }
}

function merged(accounts: readonly ThreadAccount[]): ThreadAccount {
  const byCategory = new Map<Category, number>();
  const byFunction = new Map<string, { us: number; category: Category }>();
  for (const a of accounts) {
    for (const [c, us] of a.byCategory) byCategory.set(c, (byCategory.get(c) ?? 0) + us);
    for (const [f, v] of a.byFunction) {
      const entry = byFunction.get(f) ?? { us: 0, category: v.category };
      entry.us += v.us;
      byFunction.set(f, entry);
    }
  }
  return { totalUs: accounts.reduce((s, a) => s + a.totalUs, 0), byCategory, byFunction };
}

const byProcess = new Map<string, [string, ThreadAccount][]>();
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith('.cpuprofile'))
  .sort()) {
  const who = threadOfFile(file) ?? { pid: '?', thread: file };
  if (onlyPid !== undefined && who.pid !== onlyPid) continue;
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
  const threads = byProcess.get(who.pid) ?? [];
  threads.push([who.thread, accountProfile(profile)]);
  byProcess.set(who.pid, threads);
}

for (const [pid, threads] of byProcess) {
  console.log(`\n=== process ${pid}${requests === undefined ? '' : `, ${requests} bundles`}`);
  for (const [thread, account] of threads) printAccount(thread, account);
  const workers = threads.filter(([t]) => t !== 'main').map(([, a]) => a);
  const all = merged(threads.map(([, a]) => a));
  if (workers.length > 1) printAccount(`workers together (${workers.length})`, merged(workers));
  console.log(`\nheaviest functions, all threads (self time, share of all sampled time, category):`);
  const rows = [...all.byFunction]
    .filter(([, v]) => v.category !== 'idle')
    .sort((a, b) => b[1].us - a[1].us)
    .slice(0, top);
  for (const [key, v] of rows) {
    console.log(`  ${pct(v.us, all.totalUs)}  ${key.split('\u0000')[0]}  [${v.category}]`);
  }
}
// The profiler samples by the clock: a thread waiting for a core is sampled in the frame it waits in
// (piscina's postMessage, measured at 2–3 µs of CPU, showed 5 % of a thread on 2 shared cores; P92).
if (requests !== undefined) {
  console.log(
    '\nms/bundle = sampled wall time ÷ bundles: on shared cores it overstates CPU; read shares, and take CPU from the bench (P86).',
  );
}
