// Keeps the key directory bounded (P174): every interval, deletes the bindings that never authorised a /v2 write,
// are not retired, whose subject no stored record names (P185) and were not proven by a verified bundle for
// KEY_DIRECTORY_PRUNE_AFTER_SECONDS. It also sizes the directory for the gauges, off the scrape path: counted
// exactly after a prune run (which reads the table anyway), only estimated when pruning is off (P185).
import type { Store } from '@proto/store';
import { disputeHeldSince } from './dispute-holds.ts';

/** Rows deleted per transaction, so a large backlog never holds locks for long. */
const PRUNE_BATCH = 1_000;
/** Batches per run: a backlog larger than this waits for the next interval. */
const MAX_BATCHES_PER_RUN = 100;

export interface KeyDirectoryPrunerOptions {
  readonly store: Store;
  /** 0: never prune (the directory is only estimated). */
  readonly pruneAfterMs: number;
  /** RECORDS_DISPUTE_HOLD_MAX_AGE_SECONDS in ms: an older dispute hold holds nothing (P606); 0 or absent: never. */
  readonly disputeHoldMaxAgeMs?: number;
  readonly intervalMs: number;
  readonly log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

export interface KeyDirectoryPruner {
  /** Bindings counted after the last prune run (undefined before the first, and always when pruning is off). */
  readonly size: number | undefined;
  /** With pruning off: the store's estimate at the last run, -1 when it has none (undefined before the first). */
  readonly estimate: number | undefined;
  /** Bindings this process pruned. */
  readonly pruned: number;
  /** One run now: prune and count (when enabled), or estimate. Runs never overlap. */
  run(): Promise<void>;
  /**
   * No more runs or batches; settles once a run in flight has ended, at its current batch (each batch is its own
   * transaction), so the store can be closed after it: call it before closing the store.
   */
  stop(): Promise<void>;
}

export function startKeyDirectoryPruner(options: KeyDirectoryPrunerOptions): KeyDirectoryPruner {
  const { store, pruneAfterMs, intervalMs, log } = options;
  let size: number | undefined;
  let estimate: number | undefined;
  let pruned = 0;
  let running: Promise<void> | undefined;
  let stopped = false;

  const prune = async () => {
    const provenBefore = new Date(Date.now() - pruneAfterMs);
    let thisRun = 0;
    for (let batch = 0; batch < MAX_BATCHES_PER_RUN && !stopped; batch++) {
      const n = await store.keys.pruneUnused(provenBefore, PRUNE_BATCH, {
        disputeHeldSince: disputeHeldSince(options.disputeHoldMaxAgeMs ?? 0),
      });
      thisRun += n;
      pruned += n;
      if (n < PRUNE_BATCH) break;
    }
    if (thisRun > 0) log.info({ pruned: thisRun }, 'key directory: pruned idle bindings');
    if (!stopped) size = await store.keys.size();
  };
  // With pruning off nothing else reads the whole table, and a gauge must not be the reason to.
  const once = async () => {
    if (pruneAfterMs > 0) await prune();
    else estimate = (await store.keys.estimatedSize()) ?? -1;
  };
  const run = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    running ??= once()
      .catch((error: unknown) => log.warn({ err: error }, 'key directory: pruning or counting failed'))
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const timer = setInterval(() => void run(), intervalMs);
  timer.unref();
  void run();
  return {
    get size() {
      return size;
    },
    get estimate() {
      return estimate;
    },
    get pruned() {
      return pruned;
    },
    run,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
