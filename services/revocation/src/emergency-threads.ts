// The threads POST /emergency-tokens verifies its bundle on (P539): up to EMERGENCY_VERIFY_WORKERS threads, started on
// demand and stopped after a minute idle, and EMERGENCY_VERIFY_QUEUE_MAX registrations waiting for one; past that the
// caller answers 503. A maximum-size bundle is a few hundred milliseconds of verification, which on the event loop held
// /health, /ready and every revocation read. piscina, as services/verification's pool (P575: the hand-written pool
// this replaced re-did what piscina does, thread deaths included); the admission bound is counted here, as piscina's
// own queue also holds tasks waiting for a thread that is starting.
import { fileURLToPath } from 'node:url';
import type { ProtocolProfile } from '@proto/core/verifier';
import { Piscina } from 'piscina';
import type { BundleRegistrationResult } from './emergency.ts';
import type { BodyFormat, RequestRefusal } from './emergency-request.ts';

/** Every thread is busy and the queue is full: the caller answers 503 with Retry-After. */
export class VerifyThreadsBusyError extends Error {
  constructor() {
    super('emergency registration verification queue is full');
    this.name = 'VerifyThreadsBusyError';
  }
}

export interface EmergencyVerifyTask {
  /** The request's body as it came (moved to the thread, not copied, P576): the thread reads and checks it. */
  readonly body: Uint8Array;
  readonly format: BodyFormat;
  /** The clock reading finalize() uses (ms since the epoch): the service's clock stays on the main thread. */
  readonly now: number;
}

/** What a thread answers: all the route reads of a registration (P576), and the task's time on the thread. */
export type EmergencyVerifyOutcome =
  | {
      readonly kind: 'bad_request';
      readonly refusal: RequestRefusal;
      readonly seconds: number;
    }
  | {
      readonly kind: 'judged';
      readonly registration: BundleRegistrationResult;
      /** The verdict's first error, for the 422 of a bundle that does not verify. */
      readonly firstError?: { readonly code: string; readonly message: string };
      readonly seconds: number;
    };

export interface EmergencyWorkerData {
  readonly profile: ProtocolProfile['name'];
}

export interface EmergencyVerifyThreadsOptions {
  readonly threads: number;
  readonly maxQueue: number;
  readonly profile: ProtocolProfile['name'];
  /** A thread idle this long is stopped: registrations are rare and each thread is an isolate of tens of MB. */
  readonly idleMs?: number;
  /** Each thread's old-generation heap cap in MB (P613); unset: V8's own. */
  readonly heapMb?: number;
  /** Each task's time on its thread, for the duration histogram (P577). */
  readonly onDone?: (seconds: number) => void;
}

const WORKER_FILE = fileURLToPath(new URL('./emergency-worker.ts', import.meta.url));
const DEFAULT_IDLE_MS = 60_000;

export class EmergencyVerifyThreads {
  readonly maxQueue: number;
  readonly #threads: number;
  readonly #pool: Piscina<EmergencyVerifyTask, EmergencyVerifyOutcome>;
  readonly #onDone: ((seconds: number) => void) | undefined;
  /** Tasks accepted and not settled: running on a thread, or waiting for one. */
  #inFlight = 0;
  #rejected = 0;
  #threadFailures = 0;

  constructor(options: EmergencyVerifyThreadsOptions) {
    this.#threads = options.threads;
    this.maxQueue = options.maxQueue;
    this.#onDone = options.onDone;
    this.#pool = new Piscina<EmergencyVerifyTask, EmergencyVerifyOutcome>({
      filename: WORKER_FILE,
      minThreads: 0,
      maxThreads: options.threads,
      idleTimeout: options.idleMs ?? DEFAULT_IDLE_MS,
      // P613: a thread past its cap is ended alone (its registration answered 500, counted as a thread failure);
      // without a cap a heap exhausted on a thread ended the whole process.
      ...(options.heapMb === undefined ? {} : { resourceLimits: { maxOldGenerationSizeMb: options.heapMb } }),
      workerData: { profile: options.profile } satisfies EmergencyWorkerData,
    });
    // A thread that died with no task on it (one with a task rejects that task). Without a listener the pool's
    // 'error' event would end the process.
    this.#pool.on('error', () => {
      this.#threadFailures += 1;
    });
  }

  /** Registrations waiting for a busy thread (not those a thread being started will take). */
  get queueDepth(): number {
    return this.#pool.queueSize;
  }

  /** Registrations on a thread now, or on one being started for them. */
  get running(): number {
    return Math.max(0, this.#inFlight - this.#pool.queueSize);
  }

  /** Registrations turned away because every thread was busy and the queue full, since start. */
  get rejected(): number {
    return this.#rejected;
  }

  /** Threads that stopped other than by going idle or closing (their task, if any, was answered 500), since start. */
  get threadFailures(): number {
    return this.#threadFailures;
  }

  /**
   * Verifies one registration on a thread; the body's memory is moved there when it is the body's alone. Rejects
   * with VerifyThreadsBusyError when every thread is busy and the queue is full, and with the thread's error when it
   * stopped during the task.
   */
  async verify(task: EmergencyVerifyTask): Promise<EmergencyVerifyOutcome> {
    if (this.#inFlight >= this.#threads + this.maxQueue) {
      this.#rejected += 1;
      throw new VerifyThreadsBusyError();
    }
    this.#inFlight += 1;
    try {
      const body = ownBytes(task.body);
      const outcome = await this.#pool.run({ ...task, body }, { transferList: [body.buffer] });
      this.#onDone?.(outcome.seconds);
      return outcome;
    } catch (error) {
      this.#threadFailures += 1;
      throw error;
    } finally {
      this.#inFlight -= 1;
    }
  }

  /** Finishes what was accepted, then stops every thread (the process-level shutdown timeout bounds the wait). */
  async close(): Promise<void> {
    await this.#pool.close();
  }
}

/** `bytes` if they are the only view of their memory, else a copy that is (a small body may be a slice of Node's
 * shared pool, which must not be detached): what a task moves to its thread. */
function ownBytes(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const buffer = bytes.buffer;
  const owned =
    buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength;
  return owned ? (bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(bytes);
}
