// What bench/contention-replay.ts and its threads (bench/contention-worker.ts) say to each other (P127).
import type { selectCryptoBackend } from '@proto/core/verifier';

/** The crypto backend the threads select, as the bench's CRYPTO_BACKEND names it. */
export type BackendPreference = NonNullable<Parameters<typeof selectCryptoBackend>[0]>;

/** Index in the shared Int32Array: the generation of the side allowed to start (threads wait until it is theirs). */
export const GO = 0;
/** Index in the shared Int32Array: how many measured threads of the current side have finished their window. */
export const DONE = 1;
export const SIGNAL_SLOTS = 2;

/** One thread's part in one side. */
export interface ThreadTask {
  /** Replay the bundle's calls, or spin on JSON work beside a replaying thread. */
  readonly role: 'replay' | 'spin';
  /** Timed over the window; an unmeasured thread works until every measured one is done. */
  readonly measured: boolean;
  readonly windowMs: number;
  /** The GO value that starts this side. */
  readonly generation: number;
  /** Measured threads of this side: the unmeasured work stops when DONE reaches it. */
  readonly measuredThreads: number;
}

/** What a thread read over its window (all zero when it was not measured). */
export interface ThreadReading {
  /** This thread's own CPU time (process.threadCpuUsage), ms. */
  readonly cpuMs: number;
  readonly wallMs: number;
  /** Whole rounds of the calls (or of the JSON work) done in the window. */
  readonly rounds: number;
}
