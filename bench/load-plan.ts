// How long bench/run.ts drives one row: single requests for a duration, batches for a fixed number of
// whole batches, so the CPU read from /proc covers exactly the bundles counted. Issue 14 item 3 (P91).
import autocannon, { type Result } from 'autocannon';

/** Batches per measured batch row (BENCH_BATCHES): 16 × 64 bundles is 6–9 s at elevated-10 on 2 cores. */
export const DEFAULT_BATCHES = 16;

export interface RowLoad {
  readonly url: string;
  readonly contentType: string;
  readonly accept: string;
  readonly body: string | Buffer;
  /** Bundles per request (a batch: more than one). */
  readonly perRequest: number;
}

export interface RowPlan {
  /** Bundles per request. */
  readonly perRequest: number;
  readonly connections: number;
  /** Seconds a row of single requests runs. */
  readonly durationS: number;
  /** Requests a batch row sends, every one answered before the row ends. */
  readonly batches: number;
}

export interface RowRun {
  /** Requests answered 2xx in the measured part. */
  readonly answered: number;
  /** Bundles answered 2xx per second of the measured part. */
  readonly bundlesPerSecond: number;
  readonly wallMs: number;
  readonly result: Result;
}

/**
 * A batch takes around a second: a run stopped at a deadline cuts off the batches in flight, whose CPU
 * the service has spent (and, after a warm-up, goes on spending) on bundles nobody counts, and 5–10
 * whole batches per 5 s make the count itself coarse. So a batch row sends a fixed number of requests
 * and waits for every answer, and its warm-up too (one batch per connection). Single requests take
 * milliseconds; a duration is fine for them and keeps their rows comparable with earlier runs.
 */
export function runLength(plan: RowPlan, warmUp: boolean): { amount: number } | { duration: number } {
  if (plan.perRequest > 1)
    return { amount: warmUp ? plan.connections : Math.max(plan.batches, plan.connections) };
  return { duration: warmUp ? 1 : plan.durationS };
}

/**
 * Warms up, then runs the measured part; `around` brackets the measured part only (the caller reads its
 * counters there). Bundles per second divide by the measured wall time for a batch row (it ends when its
 * last batch is answered) and by the duration asked for otherwise, as before.
 */
export async function runRow(
  load: RowLoad,
  plan: RowPlan,
  around: { before(): void | Promise<void>; after(): void | Promise<void> },
): Promise<RowRun> {
  const options = {
    url: load.url,
    method: 'POST' as const,
    headers: { 'content-type': load.contentType, accept: load.accept },
    body: load.body,
    connections: plan.connections,
  };
  await autocannon({ ...options, ...runLength(plan, true) });
  await around.before();
  const t0 = performance.now();
  // autocannon notices that its `amount` is answered only on its next one-second sample tick, so the
  // promise settles up to a second after the last answer, with the service idle meanwhile: a batch row
  // is timed to its last answer instead (P101).
  let lastAnswer = t0;
  const running = autocannon({ ...options, ...runLength(plan, false) });
  running.on('response', () => {
    lastAnswer = performance.now();
  });
  const result = await running;
  const wallMs = (plan.perRequest > 1 ? lastAnswer : performance.now()) - t0;
  await around.after();
  const seconds = plan.perRequest > 1 ? wallMs / 1000 : plan.durationS;
  return {
    answered: result['2xx'],
    bundlesPerSecond: (result['2xx'] * plan.perRequest) / seconds,
    wallMs,
    result,
  };
}
