// What a process costs, read from /proc: CPU time of all its threads (utime+stime), of one thread, and
// resident memory.
// Issue 14 items 2 and 5 (service CPU per verify, RSS idle and under load). Linux only.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/PID/stat; 100 on every Linux we run on, asked once in case not. */
const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU time of this process (ms): less disturbed by other work on a shared machine than wall time. */
export function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** utime+stime of the process (every thread, the verification workers included), in ms. */
export function cpuTimeMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/stat`);
}

/** utime+stime of one thread of the process (its main thread: `tid` = `pid`), in ms. */
export function threadCpuTimeMs(pid: number, tid: number): number {
  return statCpuMs(`/proc/${pid}/task/${tid}/stat`);
}

function statCpuMs(path: string): number {
  return statOf(path).cpuMs;
}

/** utime+stime and stime (ms) and minor page faults of a /proc stat file. */
function statOf(path: string): { cpuMs: number; systemMs: number; minorFaults: number } {
  const stat = readFileSync(path, 'utf8');
  // The command name (field 2) may contain spaces: count fields from the closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return {
    cpuMs: ((utime + stime) * 1000) / TICKS_PER_SECOND,
    systemMs: (stime * 1000) / TICKS_PER_SECOND,
    minorFaults: Number(fields[7]),
  };
}

/** voluntary_ctxt_switches + nonvoluntary_ctxt_switches of a /proc status file. */
export function contextSwitchesOf(path: string): number {
  let switches = 0;
  for (const match of readFileSync(path, 'utf8').matchAll(/^(?:non)?voluntary_ctxt_switches:\s+(\d+)$/gm))
    switches += Number(match[1]);
  return switches;
}

/** Jiffies of /proc/stat's first line: busy (everything but idle and iowait, steal included), steal, and all. */
export interface MachineJiffies {
  readonly busy: number;
  readonly steal: number;
  readonly total: number;
}

/** The machine's jiffies from a /proc/stat `cpu` line (user nice system idle iowait irq softirq steal …). */
export function parseMachineJiffies(line: string): MachineJiffies {
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const busy = user + nice + system + irq + softirq + steal;
  return { busy, steal, total: busy + idle + iowait };
}

/** The whole machine's jiffies so far (every core). */
export function machineJiffies(): MachineJiffies {
  return parseMachineJiffies(readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '');
}

/** Resident set size in MB (VmRSS of /proc/PID/status). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/**
 * The group a thread's name (/proc/PID/task/TID/comm, at most 15 characters) belongs to. Node 24 names
 * its threads: `MainThread` (until process.title renames it: threadsCpu knows the main thread by its
 * id), `V8Worker` (V8's platform workers: concurrent marking, parallel scavenge,
 * concurrent compilation), `DelayedTaskSche` (V8's delayed tasks), `libuv-worker`, `SignalInspector`;
 * a worker_threads thread (a piscina thread) is named `WorkerThread`.
 */
export function threadGroupOf(comm: string): string {
  if (comm === 'MainThread') return 'main';
  if (comm === 'WorkerThread') return 'workers';
  if (comm === 'V8Worker' || comm.startsWith('V8 DefaultWorke')) return 'v8-helpers';
  if (comm === 'libuv-worker') return 'libuv';
  if (comm === 'DelayedTaskSche') return 'v8-delayed';
  return `other:${comm}`;
}

/** One thread's cumulative CPU as read now. */
export interface ThreadCpu {
  readonly tid: number;
  readonly comm: string;
  /** threadGroupOf(comm), or `main` for the thread whose id is the process id. */
  readonly group: string;
  readonly cpuMs: number;
  /** The kernel's part of cpuMs (stime), and the minor page faults so far (P124: fresh memory's cost). */
  readonly systemMs?: number;
  readonly minorFaults?: number;
  /**
   * Context switches so far, voluntary and not (P551): a thread's wake-ups, which hardly move with the host's speed,
   * so a change to how tasks reach the pool threads shows in them where its CPU is below a run's spread.
   */
  readonly switches?: number;
}

/** Every live thread of the process with its name and utime+stime so far (threads that exit race the read). */
export function threadsCpu(pid: number): ThreadCpu[] {
  const threads: ThreadCpu[] = [];
  for (const entry of readdirSync(`/proc/${pid}/task`)) {
    try {
      const comm = readFileSync(`/proc/${pid}/task/${entry}/comm`, 'utf8').trim();
      const tid = Number(entry);
      const group = tid === pid ? 'main' : threadGroupOf(comm);
      threads.push({
        tid,
        comm,
        group,
        ...statOf(`/proc/${pid}/task/${entry}/stat`),
        switches: contextSwitchesOf(`/proc/${pid}/task/${entry}/status`),
      });
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return threads;
}

/**
 * CPU ms per thread group between two readings. A thread missing from `before` started during the run
 * and counts whole; a thread gone from `after` ended during it and its last interval is lost, so keep the
 * pool's threads alive over a measured run (VERIFY_WORKERS_MIN = VERIFY_WORKERS).
 */
export function cpuByGroupMs(
  before: readonly ThreadCpu[],
  after: readonly ThreadCpu[],
  /** What to add up: CPU ms by default; `(t) => t.systemMs ?? 0` or `t.minorFaults` read the others. */
  pick: (t: ThreadCpu) => number = (t) => t.cpuMs,
): Map<string, number> {
  const start = new Map(before.map((t) => [t.tid, pick(t)]));
  const groups = new Map<string, number>();
  for (const t of after) {
    groups.set(t.group, (groups.get(t.group) ?? 0) + pick(t) - (start.get(t.tid) ?? 0));
  }
  return groups;
}
