// A plain worker_threads pool with the part of piscina's behaviour VerifyPool relies on (P620, issue 14's
// "piscina's hand-off" piece): one task a thread at a time, a bounded queue ('Task queue is at limit'), threads
// started on demand up to maxThreads and stopped after idleTimeout down to minThreads, 'workerCreate' once a
// thread can take tasks, 'workerDestroy' when it ends, a dead thread's task rejected with
// 'worker exited with code: N', and 'error' for a thread that dies with no task on it.
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import { type ResourceLimits, Worker } from 'node:worker_threads';
import type { PoolThreadMessage } from './pool-thread.ts';

export interface ThreadPoolOptions {
  readonly filename: string;
  readonly minThreads: number;
  readonly maxThreads: number;
  readonly maxQueue: number;
  readonly idleTimeout: number;
  readonly workerData: unknown;
  readonly resourceLimits?: ResourceLimits;
}

interface Job {
  readonly task: unknown;
  readonly transferList: readonly ArrayBuffer[];
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

interface Thread {
  readonly worker: Worker;
  ready: boolean;
  /** terminate() was asked for (idle or close): its exit is no failure. */
  stopping: boolean;
  job: Job | undefined;
  jobStarted: number;
  idleTimer: NodeJS.Timeout | undefined;
}

export class ThreadPool<Task, Result> extends EventEmitter {
  readonly #options: ThreadPoolOptions;
  readonly #threads = new Set<Thread>();
  #queue: Job[] = [];
  #queueHead = 0;
  #busyMs = 0;
  readonly #since = performance.now();
  #closing = false;

  constructor(options: ThreadPoolOptions) {
    super();
    this.#options = options;
    for (let i = 0; i < options.minThreads; i += 1) this.#start();
  }

  /** Tasks waiting for a thread. */
  get queueSize(): number {
    return this.#queue.length - this.#queueHead;
  }

  /** Threads alive or starting. */
  get threads(): readonly Worker[] {
    return [...this.#threads].map((t) => t.worker);
  }

  /** Share of maxThreads' time spent running tasks since the pool was built (0–1). */
  get utilization(): number {
    const elapsed = performance.now() - this.#since;
    return elapsed <= 0 ? 0 : this.#busyMs / (elapsed * this.#options.maxThreads);
  }

  run(task: Task, options: { readonly transferList?: readonly ArrayBuffer[] } = {}): Promise<Result> {
    if (this.#closing) return Promise.reject(new Error('the pool is closed'));
    return new Promise<unknown>((resolve, reject) => {
      const job: Job = { task, transferList: options.transferList ?? [], resolve, reject };
      const idle = this.#idleThread();
      if (idle !== undefined) return this.#assign(idle, job);
      if (this.queueSize >= this.#options.maxQueue) return reject(new Error('Task queue is at limit'));
      this.#queue.push(job);
      if (this.#threads.size < this.#options.maxThreads && this.#starting() < this.queueSize) this.#start();
    }) as Promise<Result>;
  }

  /** Stops every thread; the caller has let accepted tasks finish (VerifyPool.close). */
  async close(): Promise<void> {
    this.#closing = true;
    for (const job of this.#takeQueue()) job.reject(new Error('the pool is closed'));
    await Promise.all([...this.#threads].map((t) => this.#stop(t)));
  }

  #idleThread(): Thread | undefined {
    for (const thread of this.#threads)
      if (thread.ready && !thread.stopping && thread.job === undefined) return thread;
    return undefined;
  }

  #starting(): number {
    let n = 0;
    for (const thread of this.#threads) if (!thread.ready) n += 1;
    return n;
  }

  #next(): Job | undefined {
    if (this.#queueHead >= this.#queue.length) return undefined;
    const job = this.#queue[this.#queueHead];
    this.#queue[this.#queueHead] = undefined as unknown as Job;
    this.#queueHead += 1;
    if (this.#queueHead === this.#queue.length) {
      this.#queue = [];
      this.#queueHead = 0;
    }
    return job;
  }

  #takeQueue(): Job[] {
    const jobs = this.#queue.slice(this.#queueHead);
    this.#queue = [];
    this.#queueHead = 0;
    return jobs;
  }

  #start(): void {
    if (this.#closing) return;
    const { filename, workerData, resourceLimits } = this.#options;
    const worker = new Worker(filename, {
      workerData,
      ...(resourceLimits === undefined ? {} : { resourceLimits }),
    });
    const thread: Thread = {
      worker,
      ready: false,
      stopping: false,
      job: undefined,
      jobStarted: 0,
      idleTimer: undefined,
    };
    this.#threads.add(thread);
    // An idle thread does not keep the process alive (a busy one does: its caller awaits it).
    worker.unref();
    worker.on('message', (message: PoolThreadMessage) => this.#onMessage(thread, message));
    let failure: unknown;
    worker.on('error', (error) => {
      failure = error;
    });
    worker.on('exit', (code) => this.#onExit(thread, code, failure));
  }

  #onMessage(thread: Thread, message: PoolThreadMessage): void {
    if ('ready' in message) {
      thread.ready = true;
      this.emit('workerCreate', thread.worker);
      this.#available(thread);
      return;
    }
    const job = thread.job;
    if (job === undefined) return;
    thread.job = undefined;
    this.#busyMs += performance.now() - thread.jobStarted;
    if (message.ok) job.resolve(message.value);
    else job.reject(message.error);
    this.#available(thread);
  }

  #assign(thread: Thread, job: Job): void {
    if (thread.idleTimer !== undefined) {
      clearTimeout(thread.idleTimer);
      thread.idleTimer = undefined;
    }
    if (thread.job === undefined) thread.worker.ref();
    thread.job = job;
    thread.jobStarted = performance.now();
    thread.worker.postMessage(job.task, [...job.transferList]);
  }

  #available(thread: Thread): void {
    const job = this.#next();
    if (job !== undefined) return this.#assign(thread, job);
    thread.worker.unref();
    if (this.#threads.size <= this.#options.minThreads || !Number.isFinite(this.#options.idleTimeout)) return;
    thread.idleTimer = setTimeout(() => {
      thread.idleTimer = undefined;
      if (thread.job === undefined && this.#threads.size > this.#options.minThreads) void this.#stop(thread);
    }, this.#options.idleTimeout);
    thread.idleTimer.unref();
  }

  async #stop(thread: Thread): Promise<void> {
    if (thread.idleTimer !== undefined) clearTimeout(thread.idleTimer);
    thread.stopping = true;
    await thread.worker.terminate();
  }

  #onExit(thread: Thread, code: number, failure: unknown): void {
    if (!this.#threads.delete(thread)) return;
    if (thread.idleTimer !== undefined) clearTimeout(thread.idleTimer);
    this.emit('workerDestroy', thread.worker);
    const error = new Error(`worker exited with code: ${code}`, { cause: failure });
    if (thread.job !== undefined) thread.job.reject(error);
    else if (!thread.stopping) this.emit('error', failure ?? error);
    if (!thread.stopping && !thread.ready) {
      // A thread that cannot start is not started again and again (as piscina): the waiting tasks get the failure
      // as their answer, and the next task tries a new thread.
      if (this.#starting() === 0) for (const job of this.#takeQueue()) job.reject(error);
      return;
    }
    // Tasks that came while this thread was stopping or dying wait for a thread no one else will start.
    if (this.queueSize > this.#starting() || this.#threads.size < this.#options.minThreads) this.#start();
  }
}
