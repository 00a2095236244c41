// CPU time of the verification service per thread kind, for `proto_verify_thread_cpu_seconds_total`
// (issue 14, P86): whether the main thread (HTTP, logging, task posting) or the worker pool is the one
// that runs out of core. Node's getrusage(RUSAGE_THREAD) (`process.threadCpuUsage()`) tells a thread
// its own CPU only, so each worker adds its own to a total in shared memory once per task: one cheap
// syscall per verification, nothing between tasks, and a thread that stops keeps its share counted.

/** The worker pool's side: its threads' CPU, summed in memory they all share. */
export class WorkerCpuTotal {
  /** Handed to every worker thread (workerData); microseconds of CPU, one 64-bit slot. */
  readonly buffer = new SharedArrayBuffer(BigInt64Array.BYTES_PER_ELEMENT);
  readonly #micros = new BigInt64Array(this.buffer);

  /** CPU of every worker thread this pool has run, up to each one's latest finished task. */
  get seconds(): number {
    return Number(Atomics.load(this.#micros, 0)) / 1e6;
  }
}

/**
 * Inside a worker thread: a function that adds the thread's CPU since its previous call to the shared
 * total. Called after each task, it also counts what ran between tasks (result cloning, piscina's loop).
 */
export function threadCpuReporter(buffer: SharedArrayBuffer): () => void {
  const micros = new BigInt64Array(buffer);
  let reported = 0;
  return () => {
    const { user, system } = process.threadCpuUsage();
    const used = user + system;
    if (used <= reported) return;
    Atomics.add(micros, 0, BigInt(used - reported));
    reported = used;
  };
}

/** CPU of the calling thread (the main thread, when /metrics is scraped), in seconds. */
export function ownThreadCpuSeconds(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1e6;
}
