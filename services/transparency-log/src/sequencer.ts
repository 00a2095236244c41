// Gathers appends into batches (BATCH_MAX or BATCH_WAIT_MS) committed one at a time; bounded queue, push-back.
// DECISIONS D18 (acknowledged only after the durable commit, batched), docs/architecture.md §7 (tessera: batching, no unbounded queues).
import type { LogAppendResult, LogBatchResult } from '@proto/store';

export interface SequencedLeaf extends LogAppendResult {
  /** Tree size after the batch that holds (or found) the leaf. */
  readonly treeSize: number;
}

/** Thrown by `submit` when MAX_PENDING appends already wait; the route answers 503 E702. */
export class SequencerFullError extends Error {
  constructor(pending: number) {
    super(`${pending} appends are waiting to be sequenced`);
    this.name = 'SequencerFullError';
  }
}

/** Thrown by `submit` once `close` has begun. */
export class SequencerClosedError extends Error {
  constructor() {
    super('the sequencer is shutting down');
    this.name = 'SequencerClosedError';
  }
}

export interface BatchReport {
  readonly size: number;
  readonly appended: number;
  readonly durationMs: number;
  readonly treeSize?: number;
  readonly error?: unknown;
}

export interface SequencerOptions {
  readonly batchMax: number;
  readonly batchWaitMs: number;
  readonly maxPending: number;
  /** Commits one batch durably (LogRepository.append). */
  readonly commit: (leaves: readonly Uint8Array[]) => Promise<LogBatchResult>;
  readonly onBatch?: (report: BatchReport) => void;
}

interface Pending {
  readonly leaf: Uint8Array;
  readonly resolve: (result: SequencedLeaf) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * One batch is in flight at a time, so this process's commits never race each other (replicas
 * are serialised by the database lock). An idle sequencer waits up to BATCH_WAIT_MS for company,
 * less when as many appends as the last batch held have arrived; while a commit runs, arrivals
 * queue and go in the next batch at once (group commit).
 */
export class Sequencer {
  readonly #options: SequencerOptions;
  #queue: Pending[] = [];
  #timer: NodeJS.Timeout | undefined;
  #immediate: NodeJS.Immediate | undefined;
  #inFlight: Promise<void> | undefined;
  #inFlightCount = 0;
  #closing = false;
  /** Size of the last batch taken: under steady load, about how many appends one round brings. */
  #expected = 1;

  constructor(options: SequencerOptions) {
    this.#options = options;
  }

  /** Appends waiting for a batch, plus those in the batch being committed. */
  get pending(): number {
    return this.#queue.length + this.#inFlightCount;
  }

  submit(leaf: Uint8Array): Promise<SequencedLeaf> {
    if (this.#closing) return Promise.reject(new SequencerClosedError());
    if (this.#queue.length >= this.#options.maxPending)
      return Promise.reject(new SequencerFullError(this.#queue.length));
    return new Promise<SequencedLeaf>((resolve, reject) => {
      this.#queue.push({ leaf, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#inFlight !== undefined) return; // the running batch schedules the next one
    // Commit once the batch is as large as the last one (closed-loop clients send about that many per
    // round; waiting longer only adds latency), at BATCH_MAX, or after BATCH_WAIT_MS. The commit
    // starts at setImmediate, after the requests already read in this I/O round have joined it: a
    // synchronous driver (node:sqlite) blocks the loop while it commits, so nothing joins later.
    const enough = Math.min(this.#options.batchMax, this.#expected);
    if (this.#queue.length >= enough || this.#options.batchWaitMs === 0 || this.#closing) {
      this.#immediate ??= setImmediate(() => {
        this.#immediate = undefined;
        this.#flush();
      });
    } else {
      this.#timer ??= setTimeout(() => this.#flush(), this.#options.batchWaitMs);
    }
  }

  #flush(): void {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#immediate !== undefined) {
      clearImmediate(this.#immediate);
      this.#immediate = undefined;
    }
    if (this.#inFlight !== undefined || this.#queue.length === 0) return;
    const batch = this.#queue.splice(0, this.#options.batchMax);
    this.#inFlightCount = batch.length;
    this.#expected = batch.length;
    this.#inFlight = this.#commit(batch).finally(() => {
      this.#inFlight = undefined;
      this.#inFlightCount = 0;
      // Whatever arrived during the commit has already waited: commit it now.
      if (this.#queue.length > 0) this.#flush();
    });
  }

  async #commit(batch: Pending[]): Promise<void> {
    const started = performance.now();
    try {
      const outcome = await this.#options.commit(batch.map((p) => p.leaf));
      const treeSize = outcome.head.size;
      batch.forEach((pending, i) => {
        pending.resolve({ ...(outcome.results[i] as LogAppendResult), treeSize });
      });
      this.#options.onBatch?.({
        size: batch.length,
        appended: outcome.appended,
        durationMs: performance.now() - started,
        treeSize,
      });
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      this.#options.onBatch?.({
        size: batch.length,
        appended: 0,
        durationMs: performance.now() - started,
        error,
      });
    }
  }

  /** Stops taking appends, commits everything already accepted, then resolves. */
  async close(): Promise<void> {
    this.#closing = true;
    this.#flush();
    while (this.#inFlight !== undefined || this.#queue.length > 0) {
      if (this.#inFlight === undefined) this.#flush();
      await this.#inFlight;
    }
  }
}
