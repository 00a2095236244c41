// One run shared by every caller that arrives while it is in flight (P485), and by those that arrive within
// `reuseMs` after it settled (P525). /ready and /metrics answer anyone, and each run asks the service's dependencies
// (the store, a chain's API, Esplora, the log): without sharing, forty concurrent probes were forty calls to a paid,
// rate-limited upstream, and forty probes one after another still were. Past the window a probe sees the dependency
// as it is then.
import { performance } from 'node:perf_hooks';

/**
 * `run`, but a call made while an earlier call's run is in flight, or within `reuseMs` after it settled, gets that
 * run's outcome instead (a failure too: a probe then reads a dependency at most `reuseMs` old).
 */
export function sharedWhileRunning<T>(run: () => T | Promise<T>, reuseMs = 0): () => Promise<Awaited<T>> {
  let running: Promise<Awaited<T>> | undefined;
  // Monotonic: a wall clock stepped back would otherwise keep a result.
  let settledAt: number | undefined;
  return () => {
    if (running !== undefined && settledAt !== undefined && performance.now() - settledAt >= reuseMs) {
      running = undefined;
    }
    if (running === undefined) {
      settledAt = undefined;
      const started: Promise<Awaited<T>> = Promise.resolve().then(run) as Promise<Awaited<T>>;
      const shared = started.finally(() => {
        if (running !== shared) return;
        if (reuseMs > 0) settledAt = performance.now();
        else running = undefined;
      });
      running = shared;
    }
    return running;
  };
}
