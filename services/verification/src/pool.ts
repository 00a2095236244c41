// The bounded verification thread pool: VERIFY_WORKERS threads, VERIFY_QUEUE_MAX waiting tasks, and
// push-back (E702) instead of an unbounded queue. docs/architecture.md §3 (piscina, overflow answered 503).
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { PortableVerifierOptions } from './verifier-options.ts';
import type { VerifyTask, VerifyTaskResult } from './worker.ts';

/** The queue is full: the caller answers 503 with Retry-After. */
export class PoolSaturatedError extends Error {
  constructor() {
    super('verification queue is full');
    this.name = 'PoolSaturatedError';
  }
}

export interface VerifyPoolOptions {
  readonly threads: number;
  readonly maxQueue: number;
  readonly verifier: PortableVerifierOptions;
}

const WORKER_FILE = fileURLToPath(new URL('./worker.ts', import.meta.url));

export class VerifyPool {
  readonly threads: number;
  readonly maxQueue: number;
  readonly #pool: Piscina<VerifyTask, VerifyTaskResult>;
  readonly #idleWaiters: (() => void)[] = [];
  #rejected = 0;
  #pending = 0;

  constructor(options: VerifyPoolOptions) {
    this.threads = options.threads;
    this.maxQueue = options.maxQueue;
    this.#pool = new Piscina<VerifyTask, VerifyTaskResult>({
      filename: WORKER_FILE,
      minThreads: options.threads,
      maxThreads: options.threads,
      maxQueue: options.maxQueue,
      idleTimeout: Number.POSITIVE_INFINITY,
      workerData: options.verifier,
    });
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
    if (this.#pool.queueSize >= this.maxQueue) throw this.#saturated();
    this.#pending += 1;
    try {
      return await this.#pool.run(task, transfer.length === 0 ? {} : { transferList: [...transfer] });
    } catch (error) {
      if ((error as Error).message === 'Task queue is at limit') throw this.#saturated();
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
    if (this.#pending > 0) await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
    await this.#pool.close();
  }
}
