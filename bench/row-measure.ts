// One measured row of `pnpm bench`: a load against a service process, and what it cost the service (from
// /proc and the service's own /metrics) and the load generator. Issue 14, P86, P91.
import { BATCHES, DURATION_S } from './bench-settings.ts';
import { runRow } from './load-plan.ts';
import { cpuTimeMs, ownCpuMs, rssMb, threadCpuTimeMs } from './proc-stats.ts';

export interface Load {
  readonly path: string;
  readonly contentType: string;
  readonly accept: string;
  readonly body: string | Buffer;
  /** Bundles per request (batch). */
  readonly perRequest: number;
}

export interface Measured {
  readonly bundlesPerSecond: number;
  readonly p50: number;
  readonly p99: number;
  /** Service CPU (all threads) per bundle verified, ms. */
  readonly cpuPerBundle: number;
  /** The service's main thread per bundle, ms: its own /metrics reading (NaN: a build without it, P86). */
  readonly mainPerBundle: number;
  /** The same from /proc/PID/task/PID/stat, as a check of the service's own reading. */
  readonly mainProcPerBundle: number;
  /** The verification worker threads together per bundle, ms (/metrics; NaN: a build without it). */
  readonly workersPerBundle: number;
  /** The load generator (this process: autocannon runs in it) per bundle, ms. */
  readonly loadgenPerBundle: number;
  /** Cores the load generator kept busy on average over the run. */
  readonly loadgenCores: number;
  readonly peakRssMb: number;
  readonly failures: number;
}

/** The service's CPU per thread kind from its own /metrics (P86), in ms; undefined when it has none. */
async function threadCpuOf(url: string): Promise<{ main: number; workers: number } | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const read = (thread: string) => {
    const match = new RegExp(
      `^proto_verify_thread_cpu_seconds_total\\{thread="${thread}"\\} (\\S+)$`,
      'm',
    ).exec(text);
    return match === null ? undefined : Number(match[1]) * 1000;
  };
  const main = read('main');
  const workers = read('workers');
  return main === undefined || workers === undefined ? undefined : { main, workers };
}

export async function measure(pid: number, url: string, load: Load, connections: number): Promise<Measured> {
  let peakRssMb = rssMb(pid);
  let sampler: NodeJS.Timeout | undefined;
  let threads0: Awaited<ReturnType<typeof threadCpuOf>>;
  let threads1: Awaited<ReturnType<typeof threadCpuOf>>;
  let main0 = 0;
  let cpu0 = 0;
  let gen0 = 0;
  let mainProc = 0;
  let cpu = 0;
  let gen = 0;
  const run = await runRow(
    { url: `${url}${load.path}`, ...load },
    { perRequest: load.perRequest, connections, durationS: DURATION_S, batches: BATCHES },
    {
      before: async () => {
        peakRssMb = rssMb(pid);
        sampler = setInterval(() => {
          peakRssMb = Math.max(peakRssMb, rssMb(pid));
        }, 250);
        threads0 = await threadCpuOf(url);
        main0 = threadCpuTimeMs(pid, pid);
        cpu0 = cpuTimeMs(pid);
        gen0 = ownCpuMs();
      },
      after: async () => {
        gen = ownCpuMs() - gen0;
        cpu = cpuTimeMs(pid) - cpu0;
        mainProc = threadCpuTimeMs(pid, pid) - main0;
        threads1 = await threadCpuOf(url);
        clearInterval(sampler);
      },
    },
  );
  const { result, wallMs } = run;
  const bundles = Math.max(1, run.answered) * load.perRequest;
  return {
    bundlesPerSecond: run.bundlesPerSecond,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuPerBundle: cpu / bundles,
    mainPerBundle: threads0 && threads1 ? (threads1.main - threads0.main) / bundles : Number.NaN,
    mainProcPerBundle: mainProc / bundles,
    workersPerBundle: threads0 && threads1 ? (threads1.workers - threads0.workers) / bundles : Number.NaN,
    loadgenPerBundle: gen / bundles,
    loadgenCores: gen / wallMs,
    peakRssMb,
    failures: result.non2xx + result.errors,
  };
}
