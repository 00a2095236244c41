// Labelled counters and histograms on a request's path without prom-client's per-call label work. Issue 14; P144.
import type { Counter, Histogram, LabelValues } from 'prom-client';

/**
 * Label sets one metric keeps fast paths for. Label values come from our own code (route patterns, status
 * codes, tiers, error codes), but a caller might one day pass something a client chose: past this many, a
 * new label set takes prom-client's ordinary path and is not remembered, so memory stays bounded.
 */
export const MAX_CACHED_SERIES = 256;

/**
 * What prom-client 15 keeps per label set: `hashMap[hash]` is `{ labels, value }` for a counter and
 * `{ labels, sum, count, bucketValues }` for a histogram, `labels` being the object given to the first
 * inc/observe, and `upperBounds` its buckets. Not public API: every fast step first checks that the map
 * still holds the very entry it found (reset() and remove() replace or drop it), and `resolve` gives up,
 * leaving the ordinary path, when the shape is not this one.
 */
interface Internals {
  hashMap?: Record<string, SeriesEntry | undefined>;
  upperBounds?: readonly number[];
}
interface SeriesEntry {
  labels: unknown;
  value?: number;
  sum?: number;
  count?: number;
  bucketValues?: Record<number, number>;
}

/** One label set's entry: where it sits in the metric's map, and the entry itself. */
interface Found {
  readonly key: string;
  readonly entry: SeriesEntry;
}

/** After an ordinary inc/observe with `labels`, the entry it wrote (found by the labels object's identity). */
function resolve(metric: Internals, labels: object): Found | undefined {
  const map = metric.hashMap;
  if (map === undefined || typeof map !== 'object') return undefined;
  for (const key of Object.keys(map)) {
    const entry = map[key];
    if (entry !== undefined && entry.labels === labels) return { key, entry };
  }
  return undefined;
}

/**
 * Label sets as nested maps, one level a label in the metric's order, so no key string is built per call and
 * two label sets never collide whatever their values hold.
 */
class SeriesTable<T> {
  readonly #root = new Map<string, unknown>();
  #size = 0;

  readonly #names: readonly string[];
  readonly #max: number;

  constructor(names: readonly string[], max: number) {
    this.#names = names;
    this.#max = max;
  }

  get size(): number {
    return this.#size;
  }

  get(labels: Readonly<Record<string, string | number | undefined>>): T | undefined {
    let level: unknown = this.#root;
    for (const name of this.#names) {
      level = (level as Map<string, unknown>).get(String(labels[name]));
      if (level === undefined) return undefined;
    }
    return level as T;
  }

  /** False when the table is full (the label set is then not remembered). */
  set(labels: Readonly<Record<string, string | number | undefined>>, value: T): boolean {
    if (this.#size >= this.#max) return false;
    let level = this.#root;
    for (const [i, name] of this.#names.entries()) {
      const key = String(labels[name]);
      if (i === this.#names.length - 1) {
        level.set(key, value);
        break;
      }
      let next = level.get(key) as Map<string, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(key, next);
      }
      level = next;
    }
    this.#size += 1;
    return true;
  }
}

/**
 * A counter's label sets, each incremented by one through its own entry: prom-client's inc() validates the
 * label names against the metric's and hashes the values into a string on every call, a child from labels()
 * included. The /metrics output is prom-client's own (the same entries, the same exposition).
 */
export class CounterSeries<L extends string> {
  readonly #table: SeriesTable<{ labels: LabelValues<L>; found?: Found }>;

  readonly #counter: Counter<L>;

  constructor(counter: Counter<L>, labelNames: readonly L[], max = MAX_CACHED_SERIES) {
    this.#counter = counter;
    this.#table = new SeriesTable(labelNames, max);
  }

  /** Label sets remembered (tests: bounded). */
  get size(): number {
    return this.#table.size;
  }

  inc(labels: LabelValues<L>): void {
    const internals = this.#counter as unknown as Internals;
    let series = this.#table.get(labels);
    if (series === undefined) {
      // A copy of our own: prom-client keeps the object it is given, and the caller's may change.
      series = { labels: { ...labels } };
      if (!this.#table.set(labels, series)) {
        this.#counter.inc(labels);
        return;
      }
    }
    const found = series.found;
    if (
      found !== undefined &&
      internals.hashMap?.[found.key] === found.entry &&
      typeof found.entry.value === 'number'
    ) {
      found.entry.value += 1;
      return;
    }
    this.#counter.inc(series.labels);
    const again = resolve(internals, series.labels);
    if (again === undefined) delete series.found;
    else series.found = again;
  }
}

/** A histogram's label sets, as CounterSeries: each observation straight into its entry's buckets. */
export class HistogramSeries<L extends string> {
  readonly #table: SeriesTable<{ labels: LabelValues<L>; found?: Found }>;

  readonly #histogram: Histogram<L>;

  constructor(histogram: Histogram<L>, labelNames: readonly L[], max = MAX_CACHED_SERIES) {
    this.#histogram = histogram;
    this.#table = new SeriesTable(labelNames, max);
  }

  get size(): number {
    return this.#table.size;
  }

  observe(labels: LabelValues<L>, value: number): void {
    const internals = this.#histogram as unknown as Internals;
    let series = this.#table.get(labels);
    if (series === undefined) {
      series = { labels: { ...labels } };
      if (!this.#table.set(labels, series)) {
        this.#histogram.observe(labels, value);
        return;
      }
    }
    const found = series.found;
    const bounds = internals.upperBounds;
    if (
      found !== undefined &&
      bounds !== undefined &&
      Number.isFinite(value) &&
      internals.hashMap?.[found.key] === found.entry
    ) {
      const { entry } = found;
      if (entry.sum !== undefined && entry.count !== undefined && entry.bucketValues !== undefined) {
        // prom-client's own step: the first bound at or above the value; above the last, only sum and count
        // (+Inf is the count).
        entry.sum += value;
        entry.count += 1;
        for (const bound of bounds)
          if (value <= bound) {
            if (Object.hasOwn(entry.bucketValues, bound))
              entry.bucketValues[bound] = (entry.bucketValues[bound] ?? 0) + 1;
            break;
          }
        return;
      }
    }
    // The ordinary path (and its TypeError for a value that is not a finite number).
    this.#histogram.observe(series.labels, value);
    const again = resolve(internals, series.labels);
    if (again === undefined) delete series.found;
    else series.found = again;
  }
}
