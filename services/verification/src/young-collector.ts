// A verification thread empties its young generation between two tasks when the next task would not fit in
// what is left of it (P124). A scavenge costs what is alive when it runs: in the middle of a task that is the
// parsed request (~0.8 MB for a maximum-60 bundle), which it copies and, at the next scavenge, promotes to
// old space, where only a mark-compact frees it; between tasks almost nothing is alive, so it costs little
// and promotes nothing. docs/architecture.md §3 (the pool); P99 and P112 measured V8's heap flags.
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The young generation as a thread sees it: bytes in use, and bytes left before V8 must scavenge. */
export interface YoungSpace {
  readonly used: number;
  readonly available: number;
}

export function youngSpace(): YoungSpace {
  let used = 0;
  let available = 0;
  for (const space of getHeapSpaceStatistics()) {
    if (space.space_name === 'new_space') {
      used += space.space_used_size;
      available = space.space_available_size;
    } else if (space.space_name === 'new_large_object_space') used += space.space_used_size;
  }
  return { used, available };
}

/** V8's own collector of the young generation, called synchronously. */
export type MinorCollection = () => void;

/**
 * V8's `gc` function, taken from a fresh context while `--expose-gc` is on and the flag turned off again
 * after, so no other context (the thread's own, or the main thread's) sees a global `gc`.
 */
export function minorCollection(): MinorCollection {
  setFlagsFromString('--expose-gc');
  try {
    const gc = runInNewContext('gc') as (options: { type: 'minor' }) => void;
    return () => gc({ type: 'minor' });
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

/**
 * How much a task takes of the young generation is learnt from the tasks themselves: the most any of the
 * last `window` took (a task during which V8 scavenged tells nothing and is left out). After a task, when
 * less than that is left, the young generation is collected there, before the next task would fill it.
 */
export class YoungCollector {
  readonly #space: () => YoungSpace;
  readonly #collect: MinorCollection;
  readonly #recent: number[] = [];
  readonly #window: number;
  #usedBefore = 0;
  #collections = 0;

  constructor(
    space: () => YoungSpace = youngSpace,
    collect: MinorCollection = minorCollection(),
    window = 16,
  ) {
    this.#space = space;
    this.#collect = collect;
    this.#window = window;
  }

  /** Collections this thread ran between tasks. */
  get collections(): number {
    return this.#collections;
  }

  taskStarts(): void {
    this.#usedBefore = this.#space().used;
  }

  taskEnded(): void {
    const after = this.#space();
    const took = after.used - this.#usedBefore;
    // Less in use than at the start: V8 scavenged during the task, so `took` is not what the task allocated.
    if (took > 0) {
      this.#recent.push(took);
      if (this.#recent.length > this.#window) this.#recent.shift();
    }
    const next = Math.max(0, ...this.#recent);
    if (next > 0 && after.available < next) {
      this.#collect();
      this.#collections += 1;
    }
  }
}
