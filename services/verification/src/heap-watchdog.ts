// The main thread's heap watchdog (P143): V8 sizes the main thread's old space from its own speed figures and
// keeps what it grew (1.1–4 × the live data, docs/operations.md "Memory"), so the RSS follows the heap's
// high-water mark rather than what the service keeps. The watchdog caps nothing (a cap ends the process on a
// dense body, P140): every interval it compares the heap's total with what the last collection left live and,
// when the total has outgrown it, runs one full collection, never more often than the minimum gap, so a client
// who inflates the heap buys at most a bounded share of the main thread.
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's gc extension as `--expose-gc` installs it (a synchronous full collection when called bare). */
type GcFunction = () => void;

/**
 * The gc function for the calling thread only: the flag is set just long enough for one fresh context to be
 * given `gc`, then cleared, so no other code (and no isolate made later) sees a global `gc`.
 */
function mainThreadGc(): GcFunction {
  const exposed = (globalThis as { gc?: unknown }).gc;
  if (typeof exposed === 'function') return exposed as GcFunction;
  setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as GcFunction;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

export interface HeapWatchdogOptions {
  /** How often the heap is read, ms. */
  readonly intervalMs: number;
  /** Collect once the heap's total exceeds this multiple of what the last collection left live. */
  readonly factor?: number;
  /** Never collect below this heap total, bytes (an idle service's heap is ~50 MB). */
  readonly floorBytes?: number;
  /** Least time between two forced collections, ms. */
  readonly minGapMs?: number;
  /** Told after each forced collection: its pause and the heap's total before and after. */
  readonly onCollect?: (event: HeapCollection) => void;
  /** Test seam: the heap reading and the collection (default: V8's). */
  readonly heap?: () => { readonly total: number; readonly used: number };
  readonly gc?: GcFunction;
  readonly now?: () => number;
}

export interface HeapCollection {
  readonly pauseMs: number;
  readonly totalBefore: number;
  readonly totalAfter: number;
  readonly usedAfter: number;
}

export interface HeapWatchdog {
  /** Forced collections so far. */
  readonly collections: number;
  /** Checks the heap now (the timer's work; exposed for tests). */
  check(): void;
  stop(): void;
}

export const HEAP_WATCHDOG_FACTOR = 1.5;
export const HEAP_WATCHDOG_FLOOR_BYTES = 96 * 1024 * 1024;
export const HEAP_WATCHDOG_MIN_GAP_MS = 5_000;

function v8Heap(): { total: number; used: number } {
  const stats = getHeapStatistics();
  return { total: stats.total_heap_size, used: stats.used_heap_size };
}

export function startHeapWatchdog(options: HeapWatchdogOptions): HeapWatchdog {
  const factor = options.factor ?? HEAP_WATCHDOG_FACTOR;
  const floor = options.floorBytes ?? HEAP_WATCHDOG_FLOOR_BYTES;
  const minGap = options.minGapMs ?? HEAP_WATCHDOG_MIN_GAP_MS;
  const heap = options.heap ?? v8Heap;
  const gc = options.gc ?? mainThreadGc();
  const now = options.now ?? (() => performance.now());
  // Until the first forced collection the used size at start stands for the live data (an idle service's heap
  // is mostly its modules, all live).
  let live = heap().used;
  let lastAt = Number.NEGATIVE_INFINITY;
  let collections = 0;

  const check = () => {
    const { total } = heap();
    if (total <= Math.max(floor, factor * live)) return;
    const start = now();
    if (start - lastAt < minGap) return;
    gc();
    const end = now();
    lastAt = end;
    collections += 1;
    const after = heap();
    live = after.used;
    options.onCollect?.({
      pauseMs: end - start,
      totalBefore: total,
      totalAfter: after.total,
      usedAfter: after.used,
    });
  };
  // unref'd: the watchdog never keeps the process alive on its own.
  const timer = setInterval(check, options.intervalMs);
  timer.unref();
  return {
    get collections() {
      return collections;
    },
    check,
    stop: () => clearInterval(timer),
  };
}
