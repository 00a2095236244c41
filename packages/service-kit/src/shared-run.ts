// One run shared by every caller that arrives while it is in flight (P485). /ready and /metrics answer anyone, and
// each run asks the service's dependencies (the store, a chain's API, Esplora, the log): without sharing, forty
// concurrent probes were forty calls to a paid, rate-limited upstream. Nothing is kept once the run settles, so a
// probe after it sees the dependency as it is then.

/** `run`, but a call made while an earlier call's run is still in flight gets that run's outcome instead. */
export function sharedWhileRunning<T>(run: () => T | Promise<T>): () => Promise<Awaited<T>> {
  let running: Promise<Awaited<T>> | undefined;
  return () => {
    if (running === undefined) {
      const started: Promise<Awaited<T>> = Promise.resolve().then(run) as Promise<Awaited<T>>;
      running = started.finally(() => {
        running = undefined;
      });
    }
    return running;
  };
}
