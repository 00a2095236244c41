// What a process costs, read from /proc: CPU time of all its threads (utime+stime), of one thread, and
// resident memory.
// Issue 14 items 2 and 5 (service CPU per verify, RSS idle and under load). Linux only.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

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
  const stat = readFileSync(path, 'utf8');
  // The command name (field 2) may contain spaces: count fields from the closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / TICKS_PER_SECOND;
}

/** Resident set size in MB (VmRSS of /proc/PID/status). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}
