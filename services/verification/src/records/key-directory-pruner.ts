// Keeps the key directory bounded (P174): every interval, deletes the bindings that never authorised a /v2 write,
// are not retired and were not proven by a verified bundle for KEY_DIRECTORY_PRUNE_AFTER_SECONDS, and counts the
// rows for the `key_directory_bindings` gauge (counted here, not at each scrape: COUNT(*) of a large table is slow).
import type { Store } from '@proto/store';

/** Rows deleted per transaction, so a large backlog never holds locks for long. */
const PRUNE_BATCH = 1_000;
/** Batches per run: a backlog larger than this waits for the next interval. */
const MAX_BATCHES_PER_RUN = 100;

export interface KeyDirectoryPrunerOptions {
  readonly store: Store;
  /** 0: never prune (the directory is only counted). */
  readonly pruneAfterMs: number;
  readonly intervalMs: number;
  readonly log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

export interface KeyDirectoryPruner {
  /** Bindings counted at the last run (undefined before the first). */
  readonly size: number | undefined;
  /** Bindings this process pruned. */
  readonly pruned: number;
  /** One run now: prune (when enabled), then count. Runs never overlap. */
  run(): Promise<void>;
  /** No more runs; settles once a run in flight has ended. */
  stop(): Promise<void>;
}

export function startKeyDirectoryPruner(options: KeyDirectoryPrunerOptions): KeyDirectoryPruner {
  const { store, pruneAfterMs, intervalMs, log } = options;
  let size: number | undefined;
  let pruned = 0;
  let running: Promise<void> | undefined;

  const once = async () => {
    if (pruneAfterMs > 0) {
      const provenBefore = new Date(Date.now() - pruneAfterMs);
      let thisRun = 0;
      for (let batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
        const n = await store.keys.pruneUnused(provenBefore, PRUNE_BATCH);
        thisRun += n;
        if (n < PRUNE_BATCH) break;
      }
      pruned += thisRun;
      if (thisRun > 0) log.info({ pruned: thisRun }, 'key directory: pruned idle bindings');
    }
    size = await store.keys.size();
  };
  const run = (): Promise<void> => {
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
    get pruned() {
      return pruned;
    },
    run,
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
