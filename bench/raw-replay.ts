// The raw signature cost of a bundle in `pnpm bench` (issue 14, P100, P114): its own verify() calls replayed
// in this process just before and just after every measured row, the "after" one once the service has gone
// quiet, with what else the machine did meanwhile.
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { CryptoBackend } from '@proto/core';
import type { SignatureCall } from './engine-cases.ts';
import { cpuTimeMs, machineJiffies, ownCpuMs } from './proc-stats.ts';

/** What one replay read, per round of the bundle's calls. */
export interface Replay {
  /** Wall time (ms): the figure the tables print as raw ms. */
  readonly wallMs: number;
  /** This process's CPU time (ms): equal to wall time unless the replay was kept off a core. */
  readonly cpuMs: number;
  /** Cores the service process kept busy while the replay ran (NaN: no service given). */
  readonly serviceCores: number;
  /** Cores the whole machine kept busy meanwhile (/proc/stat, the replay's own included). */
  readonly machineCores: number;
}

/**
 * The bundle's own verify() calls replayed on the same backend (keys cached as the engine caches them),
 * so message lengths are the bundle's: rounds until `budgetMs` of wall time, after one untimed round.
 */
export function replayRaw(
  backend: CryptoBackend,
  calls: readonly SignatureCall[],
  budgetMs = 300,
  servicePid?: number,
): Replay {
  const once = () => {
    for (const c of calls) {
      if (!backend.verify(c.alg, c.publicKey, c.message, c.signature)) throw new Error('replay failed');
    }
  };
  once();
  const service0 = servicePid === undefined ? Number.NaN : cpuTimeMs(servicePid);
  const machine0 = machineJiffies();
  const cpu0 = ownCpuMs();
  let rounds = 0;
  const t0 = performance.now();
  let elapsed = 0;
  do {
    once();
    rounds++;
    elapsed = performance.now() - t0;
  } while (elapsed < budgetMs && rounds < 10_000);
  const cpu = ownCpuMs() - cpu0;
  const machine1 = machineJiffies();
  const service = servicePid === undefined ? Number.NaN : cpuTimeMs(servicePid) - service0;
  const jiffies = Math.max(1, machine1.total - machine0.total);
  return {
    wallMs: elapsed / rounds,
    cpuMs: cpu / rounds,
    serviceCores: service / elapsed,
    machineCores: ((machine1.busy - machine0.busy) / jiffies) * availableParallelism(),
  };
}

/** The wall time per round of a replay (ms). */
export function replayRawMs(backend: CryptoBackend, calls: readonly SignatureCall[], budgetMs = 300): number {
  return replayRaw(backend, calls, budgetMs).wallMs;
}

/** A service counts as quiet below this many cores of CPU over one 100 ms slice. */
const QUIET_CORES = 0.05;

/**
 * Waits until the service process is quiet (pool threads done with what was queued, its GC and records
 * written), so the replay after a row does not share the cores with the row's tail; gives up after
 * `timeoutMs` and says so.
 */
export async function waitForQuiet(
  pid: number,
  timeoutMs = 5000,
): Promise<{ waitedMs: number; quiet: boolean }> {
  const t0 = performance.now();
  for (;;) {
    const c0 = cpuTimeMs(pid);
    const s0 = performance.now();
    await new Promise((r) => setTimeout(r, 100));
    const busy = (cpuTimeMs(pid) - c0) / (performance.now() - s0);
    const waitedMs = performance.now() - t0;
    if (busy < QUIET_CORES) return { waitedMs, quiet: true };
    if (waitedMs > timeoutMs) return { waitedMs, quiet: false };
  }
}

/** Rows whose raw cost moved more than this between before and after are measured again, then marked. */
export const RAW_DRIFT_LIMIT = 0.1;

export const isUnsteady = (drift: number) => Math.abs(drift - 1) > RAW_DRIFT_LIMIT;

export interface RawAround<T> {
  readonly measured: T;
  /** Mean of the replays before and after (ms). */
  readonly rawMs: number;
  /** after ÷ before. */
  readonly drift: number;
  readonly before: Replay;
  readonly after: Replay;
  /** False: the service still burned CPU when the "after" replay had to start. */
  readonly quietAfter: boolean;
}

/** A measured run with the bundle's raw signature cost taken just before and just after it. */
export async function measureWithRaw<T>(
  backend: CryptoBackend,
  calls: readonly SignatureCall[],
  run: () => Promise<T>,
  servicePid?: number,
): Promise<RawAround<T>> {
  const before = replayRaw(backend, calls, 300, servicePid);
  const measured = await run();
  const quietAfter = servicePid === undefined ? true : (await waitForQuiet(servicePid)).quiet;
  const after = replayRaw(backend, calls, 300, servicePid);
  return {
    measured,
    rawMs: (before.wallMs + after.wallMs) / 2,
    drift: after.wallMs / before.wallMs,
    before,
    after,
    quietAfter,
  };
}

/** The replays' side readings, for BENCH_RAW_TRACE=1. */
export function traceLine(name: string, mode: string, attempt: number, r: RawAround<unknown>): string {
  const f = (x: Replay) =>
    `wall ${x.wallMs.toFixed(2)} cpu ${x.cpuMs.toFixed(2)} service ${x.serviceCores.toFixed(2)} machine ${x.machineCores.toFixed(2)} cores`;
  return `  raw trace ${name} ${mode} #${attempt}: before ${f(r.before)} | after${r.quietAfter ? '' : ' (service not quiet)'} ${f(r.after)}`;
}
