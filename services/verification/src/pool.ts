// The bounded verification thread pool: up to VERIFY_WORKERS threads, VERIFY_QUEUE_MAX waiting tasks, and
// push-back (E702) instead of an unbounded queue. docs/architecture.md §3 (piscina, overflow answered 503).
// Threads start on demand and stop after VERIFY_WORKER_IDLE_MS idle, down to VERIFY_WORKERS_MIN: each is
// an isolate of ~30–45 MB that an idle service need not hold (P71, docs/operations.md#memory).
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { turnOffAllocationSitePretenuring } from './pretenuring.ts';
import { WorkerCpuTotal } from './thread-cpu.ts';
import type { PortableVerifierOptions } from './verifier-options.ts';
import type {
  VerifyGroupResult,
  VerifyGroupTask,
  VerifyTask,
  VerifyTaskResult,
  VerifyWorkerData,
} from './worker.ts';

/** The queue is full: the caller answers 503 with Retry-After. */
export class PoolSaturatedError extends Error {
  constructor() {
    super('verification queue is full');
    this.name = 'PoolSaturatedError';
  }
}

export interface VerifyPoolOptions {
  /** Most threads at once. */
  readonly threads: number;
  /** Threads kept while idle (0: none until a task comes). */
  readonly minThreads: number;
  /** A thread above minThreads idle this long is stopped. */
  readonly idleTimeoutMs: number;
  readonly maxQueue: number;
  readonly verifier: PortableVerifierOptions;
  /** How often a thread hands a passport it keeps seeing over in full (P229; tests shorten it). */
  readonly passportRefreshMs?: number;
}

const WORKER_FILE = fileURLToPath(new URL('./worker.ts', import.meta.url));

export class VerifyPool {
  readonly threads: number;
  readonly maxQueue: number;
  readonly #pool: Piscina<VerifyTask | VerifyGroupTask, VerifyTaskResult | VerifyGroupResult>;
  readonly #cpu = new WorkerCpuTotal();
  readonly #idleWaiters: (() => void)[] = [];
  #rejected = 0;
  #pending = 0;
  #started = 0;
  #stopped = 0;
  #threadFailed = false;
  #closed = false;

  constructor(options: VerifyPoolOptions) {
    this.threads = options.threads;
    this.maxQueue = options.maxQueue;
    // P476: before any thread starts, so no pool thread takes a pretenuring decision that promotes every bundle.
    turnOffAllocationSitePretenuring();
    this.#pool = new Piscina<VerifyTask | VerifyGroupTask, VerifyTaskResult | VerifyGroupResult>({
      filename: WORKER_FILE,
      minThreads: Math.min(options.minThreads, options.threads),
      maxThreads: options.threads,
      maxQueue: options.maxQueue,
      idleTimeout: options.idleTimeoutMs,
      workerData: {
        ...options.verifier,
        threadCpu: this.#cpu.buffer,
        ...(options.passportRefreshMs === undefined ? {} : { passportRefreshMs: options.passportRefreshMs }),
      } satisfies VerifyWorkerData,
    });
    // 'workerCreate' fires once a thread has loaded the worker module and can take tasks.
    this.#pool.on('workerCreate', () => {
      this.#started += 1;
      this.#threadFailed = false;
    });
    this.#pool.on('workerDestroy', () => {
      this.#stopped += 1;
    });
    // A thread that died with no task on it (its tasks, if any, are rejected to their callers). Without a
    // listener the pool's 'error' event would end the process.
    this.#pool.on('error', () => {
      this.#threadFailed = true;
    });
  }

  /**
   * The pool can verify: not closed, and a thread is alive or none has failed since the last one started.
   * With no idle threads (P71) an idle service stays ready: its next task starts a thread.
   */
  get ready(): boolean {
    return !this.#closed && (this.liveThreads > 0 || !this.#threadFailed);
  }

  /** Threads started (ready to take tasks) since the pool was built. */
  get threadsStarted(): number {
    return this.#started;
  }

  /** Threads stopped (idle timeout, failure or close) since the pool was built. */
  get threadsStopped(): number {
    return this.#stopped;
  }

  /** Tasks waiting for a thread. */
  get queueDepth(): number {
    return this.#pool.queueSize;
  }

  /** Threads alive. */
  get liveThreads(): number {
    return this.#pool.threads.length;
  }

  /** Share of the pool's capacity used since start (0–1). */
  get utilization(): number {
    return this.#pool.utilization;
  }

  /** CPU seconds of the pool's threads, stopped ones included (P86). */
  get workerCpuSeconds(): number {
    return this.#cpu.seconds;
  }

  /** Requests turned away because the queue was full (metrics: pool saturation; issue 16). */
  get rejected(): number {
    return this.#rejected;
  }

  #saturated(): PoolSaturatedError {
    this.#rejected += 1;
    return new PoolSaturatedError();
  }

  /** `transfer`: buffers moved to the worker instead of copied (the caller must not touch them again). */
  async run(task: VerifyTask, transfer: readonly ArrayBuffer[] = []): Promise<VerifyTaskResult> {
    return (await this.#run(task, transfer)) as VerifyTaskResult;
  }

  /** Several bundles as one task (P109): one message and one wake-up each way for the whole group. */
  async runGroup(
    group: readonly VerifyTask[],
    transfer: readonly ArrayBuffer[] = [],
  ): Promise<VerifyGroupResult['results']> {
    return ((await this.#run({ group }, transfer)) as VerifyGroupResult).results;
  }

  async #run(
    task: VerifyTask | VerifyGroupTask,
    transfer: readonly ArrayBuffer[],
  ): Promise<VerifyTaskResult | VerifyGroupResult> {
    if (this.#pool.queueSize >= this.maxQueue) throw this.#saturated();
    this.#pending += 1;
    try {
      return await this.#pool.run(task, transfer.length === 0 ? {} : { transferList: [...transfer] });
    } catch (error) {
      if ((error as Error).message === 'Task queue is at limit') throw this.#saturated();
      if ((error as Error).message.startsWith('worker exited')) this.#threadFailed = true;
      throw error;
    } finally {
      this.#pending -= 1;
      if (this.#pending === 0) for (const resolve of this.#idleWaiters.splice(0)) resolve();
    }
  }

  /**
   * Finishes every accepted task (queued ones included: a caller that hung up still had its work
   * accepted), then stops the threads. The process-level shutdown timeout bounds the wait.
   */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#pending > 0) await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
    await this.#pool.close();
  }
}
