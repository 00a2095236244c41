// The threads POST /emergency-tokens verifies its bundle on (P539): up to EMERGENCY_VERIFY_WORKERS threads, started
// on demand and stopped after a minute idle, and EMERGENCY_VERIFY_QUEUE_MAX registrations waiting for one; past that
// the caller answers 503. A maximum-size bundle is a few hundred milliseconds of verification, which on the event
// loop held /health, /ready and every revocation read. node:worker_threads, not piscina: the service needs one
// message each way and no new dependency (services/verification's pool cannot be imported across services).
import { Worker } from 'node:worker_threads';
import type { ProtocolProfile } from '@proto/core/verifier';
import type { BundleFacts, BundleVerdict } from './emergency.ts';

/** Every thread is busy and the queue is full: the caller answers 503 with Retry-After. */
export class VerifyThreadsBusyError extends Error {
  constructor() {
    super('emergency registration verification queue is full');
    this.name = 'VerifyThreadsBusyError';
  }
}

export interface EmergencyVerifyTask {
  readonly signed_bundle: unknown;
  /** The clock reading finalize() uses (ms since the epoch): the service's clock stays on the main thread. */
  readonly now: number;
}

export interface EmergencyVerifyResult {
  readonly analysis: BundleFacts;
  readonly response: BundleVerdict;
}

export interface EmergencyWorkerData {
  readonly profile: ProtocolProfile['name'];
}

export interface EmergencyVerifyThreadsOptions {
  readonly threads: number;
  readonly maxQueue: number;
  readonly profile: ProtocolProfile['name'];
  /** A thread idle this long is stopped: registrations are rare and each thread is an isolate of tens of MB. */
  readonly idleMs?: number;
}

interface Pending {
  readonly task: EmergencyVerifyTask;
  resolve(result: EmergencyVerifyResult): void;
  reject(error: Error): void;
}

const WORKER_FILE = new URL('./emergency-worker.ts', import.meta.url);
const DEFAULT_IDLE_MS = 60_000;

export class EmergencyVerifyThreads {
  readonly #options: EmergencyVerifyThreadsOptions;
  readonly #idle = new Map<Worker, NodeJS.Timeout>();
  readonly #busy = new Map<Worker, Pending>();
  readonly #queue: Pending[] = [];
  #closed = false;

  constructor(options: EmergencyVerifyThreadsOptions) {
    this.#options = options;
  }

  /** Rejects with VerifyThreadsBusyError when every thread is busy and the queue is full. */
  verify(task: EmergencyVerifyTask): Promise<EmergencyVerifyResult> {
    return new Promise((resolve, reject) => {
      if (this.#closed) {
        reject(new Error('emergency registration verification threads are closed'));
        return;
      }
      const pending: Pending = { task, resolve, reject };
      const worker =
        this.#idleWorker() ?? (this.#threads() < this.#options.threads ? this.#start() : undefined);
      if (worker !== undefined) this.#assign(worker, pending);
      else if (this.#queue.length < this.#options.maxQueue) this.#queue.push(pending);
      else reject(new VerifyThreadsBusyError());
    });
  }

  /** Turns away what waits and stops every thread (a task still running is rejected by its thread's exit). */
  async close(): Promise<void> {
    this.#closed = true;
    for (const pending of this.#queue.splice(0)) {
      pending.reject(new Error('emergency registration verification threads are closed'));
    }
    const workers = [...this.#idle.keys(), ...this.#busy.keys()];
    for (const timer of this.#idle.values()) clearTimeout(timer);
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  #threads(): number {
    return this.#idle.size + this.#busy.size;
  }

  #idleWorker(): Worker | undefined {
    const first = this.#idle.entries().next();
    if (first.done === true) return undefined;
    const [worker, timer] = first.value;
    clearTimeout(timer);
    this.#idle.delete(worker);
    return worker;
  }

  #start(): Worker {
    const worker = new Worker(WORKER_FILE, {
      workerData: { profile: this.#options.profile } satisfies EmergencyWorkerData,
    });
    // An idle thread never keeps the process up; the HTTP server does while it listens.
    worker.unref();
    let failure: Error | undefined;
    worker.on('message', (result: EmergencyVerifyResult) => {
      const pending = this.#busy.get(worker);
      this.#busy.delete(worker);
      pending?.resolve(result);
      this.#next(worker);
    });
    worker.on('error', (error) => {
      failure = error;
    });
    worker.on('exit', () => {
      const pending = this.#busy.get(worker);
      this.#busy.delete(worker);
      const timer = this.#idle.get(worker);
      if (timer !== undefined) clearTimeout(timer);
      this.#idle.delete(worker);
      pending?.reject(failure ?? new Error('an emergency registration verification thread stopped'));
      // What waited for a thread gets one of its own.
      const waiting = this.#queue.shift();
      if (waiting !== undefined && !this.#closed) this.#assign(this.#start(), waiting);
    });
    return worker;
  }

  #assign(worker: Worker, pending: Pending): void {
    this.#busy.set(worker, pending);
    worker.postMessage(pending.task);
  }

  #next(worker: Worker): void {
    const waiting = this.#queue.shift();
    if (waiting !== undefined) {
      this.#assign(worker, waiting);
      return;
    }
    if (this.#closed) return;
    const timer = setTimeout(() => {
      this.#idle.delete(worker);
      void worker.terminate();
    }, this.#options.idleMs ?? DEFAULT_IDLE_MS);
    timer.unref();
    this.#idle.set(worker, timer);
  }
}
