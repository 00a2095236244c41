// Verification metrics (`proto_` under every profile): latency by tier, verdicts, cache hits/misses, PQ checkpoints,
// errors by code, requests by tier, pool queue depth and rejections, revocation sources. SPEC.md Events; issue 16.
import type { Counter, Histogram, RevocationChecker, ServiceMetrics } from '@proto/service-kit';
import type { VerificationCache } from './cache.ts';
import type { VerifyPool } from './pool.ts';
import { ownThreadCpuSeconds } from './thread-cpu.ts';

export interface AnchorLookupCount {
  readonly labels: { readonly kind: string; readonly status: string; readonly code: string };
  readonly count: number;
}

export interface VerificationMetrics {
  readonly latency: Histogram<'tier'>;
  readonly verified: Counter<'result' | 'version' | 'tier'>;
  readonly requestsByTier: Counter<'tier'>;
  readonly cacheHits: Counter;
  readonly cacheMisses: Counter;
  readonly checkpointsVerified: Counter;
  readonly errorsByCode: Counter<'code'>;
}

/** The tier label: the resolved tier, or `none` for bundles without one (V1, unreadable). */
export function tierLabel(tier: string | undefined): string {
  return tier ?? 'none';
}

export function createVerificationMetrics(
  metrics: ServiceMetrics,
  sources: {
    readonly pool: VerifyPool;
    readonly cache: VerificationCache;
    /** Each configured revocation source, its checker, and when it last answered with an accepted list. */
    readonly revocation?: {
      readonly checker: RevocationChecker | undefined;
      readonly jurisdictions: readonly string[];
      readonly lastSuccess: ReadonlyMap<string, number>;
    };
    /** Anchor look-ups so far, by `kind|status|code` (anchor-lookups.ts). */
    readonly anchorLookups?: ReadonlyMap<string, AnchorLookupCount>;
  },
): VerificationMetrics {
  metrics.counter(
    'verify_pool_rejected_total',
    'Verifications turned away with 503 E702 because the worker-pool queue was full',
    [],
    (c) => {
      c.reset();
      c.inc(sources.pool.rejected);
    },
  );
  metrics.gauge(
    'verify_pool_queue_max',
    'Largest verification queue before push-back (VERIFY_QUEUE_MAX)',
    [],
    (g) => {
      g.set(sources.pool.maxQueue);
    },
  );
  const revocation = sources.revocation;
  if (revocation !== undefined) {
    metrics.gauge(
      'revocation_source_last_success_timestamp_seconds',
      'When each revocation source last answered with a list accepted as current (Unix seconds)',
      ['jurisdiction'],
      (g) => {
        for (const [jurisdiction, at] of revocation.lastSuccess) g.set({ jurisdiction }, at / 1000);
      },
    );
    metrics.gauge(
      'revocation_source_state',
      'Each revocation source: 1 for its current state (ok, never_fetched, or the problem: unavailable, stale, ...)',
      ['jurisdiction', 'state'],
      (g) => {
        g.reset();
        for (const jurisdiction of revocation.jurisdictions) {
          const state = revocation.checker?.state(jurisdiction);
          const name = state === undefined ? 'never_fetched' : (state.problem?.reason ?? 'ok');
          g.set({ jurisdiction, state: name }, 1);
        }
      },
    );
  }
  // P154: every anchor look-up (cache misses only) by receipt kind, status and wire code ("none" on a pass).
  const anchorLookups = sources.anchorLookups;
  if (anchorLookups !== undefined) {
    metrics.counter(
      'anchor_verify_lookups_total',
      'Anchor receipts looked up at their chain, explorer or log, by receipt kind, status and code (E701: the source could not be read)',
      ['kind', 'status', 'code'],
      (c) => {
        c.reset();
        for (const { labels, count } of anchorLookups.values()) c.inc(labels, count);
      },
    );
  }
  // P86: which thread runs out of core first; the rest of process_cpu_seconds_total is V8's GC helpers,
  // libuv's pool and the compiler threads. Collected on the main thread, so `main` is its own reading,
  // counted from here on as process_cpu_seconds_total counts from the registry's start (not the boot).
  const mainAtStart = ownThreadCpuSeconds();
  metrics.counter(
    'verify_thread_cpu_seconds_total',
    'CPU seconds of the service main thread (HTTP, logging, task posting) and of the verification worker threads',
    ['thread'],
    (c) => {
      c.reset();
      c.inc({ thread: 'main' }, ownThreadCpuSeconds() - mainAtStart);
      c.inc({ thread: 'workers' }, sources.pool.workerCpuSeconds);
    },
  );
  metrics.gauge('verify_pool_queue_depth', 'Verifications waiting for a worker thread', [], (g) => {
    g.set(sources.pool.queueDepth);
  });
  metrics.gauge('verify_pool_threads', 'Live verification worker threads', [], (g) => {
    g.set(sources.pool.liveThreads);
  });
  // Lazy threads (P71): how often they start and stop shows whether VERIFY_WORKER_IDLE_MS suits the traffic.
  metrics.counter('verify_pool_threads_started_total', 'Verification threads started', [], (c) => {
    c.reset();
    c.inc(sources.pool.threadsStarted);
  });
  metrics.counter(
    'verify_pool_threads_stopped_total',
    'Verification threads stopped (idle, failed or closed)',
    [],
    (c) => {
      c.reset();
      c.inc(sources.pool.threadsStopped);
    },
  );
  metrics.counter(
    'verify_pool_threads_out_of_memory_total',
    'Verifications whose thread passed VERIFY_THREAD_HEAP_MB and was ended (answered 500 E900; P612)',
    [],
    (c) => {
      c.reset();
      c.inc(sources.pool.outOfMemory);
    },
  );
  metrics.gauge(
    'verification_cache_bytes',
    'Bytes of the cached analyses as counted against VERIFICATION_CACHE_MAX_BYTES',
    [],
    (g) => {
      g.set(sources.cache.bytes);
    },
  );
  metrics.gauge('verification_cache_entries', 'Analyses held in the verification cache', [], (g) => {
    g.set(sources.cache.size);
  });
  return {
    latency: metrics.histogram(
      'verification_duration_seconds',
      'POST /verify latency by resolved security tier',
      ['tier'],
    ),
    verified: metrics.counter(
      'bundles_verified_total',
      'Bundles judged, by result, bundle version and tier',
      ['result', 'version', 'tier'],
    ),
    requestsByTier: metrics.counter(
      'verify_requests_total',
      'Verification requests by resolved security tier',
      ['tier'],
    ),
    cacheHits: metrics.counter('verification_cache_hits_total', 'Verifications answered from the cache'),
    cacheMisses: metrics.counter(
      'verification_cache_misses_total',
      'Cacheable verifications not in the cache',
    ),
    checkpointsVerified: metrics.counter(
      'pq_checkpoints_verified_total',
      'PQ checkpoints whose signatures and coverage verified',
    ),
    errorsByCode: metrics.counter('verification_errors_total', 'Verification errors by error code', ['code']),
  };
}
