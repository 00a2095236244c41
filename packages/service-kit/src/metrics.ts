// Prometheus metrics: one registry per service, unprefixed default process metrics, an HTTP duration histogram,
// service metrics under one namespace for every profile (`proto_`, profile as a label). SPEC.md Events;
// issue 16 item 3; docs/architecture.md §3 (prom-client).
import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { LOAD_SHEDDING_EXEMPT } from './load-shedding.ts';
import { sharedWhileRunning } from './shared-run.ts';

export type { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds; from sub-millisecond cache hits to multi-second verifications of large bundles. */
export const LATENCY_BUCKETS: readonly number[] = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/**
 * The namespace of every service metric, the same under every PROTOCOL_PROFILE (the profile is a label), so
 * alerts and dashboards need one set of names (issue 16; ops-decisions "Metric namespace").
 */
export const METRIC_NAMESPACE = 'proto_';

export interface ServiceMetricsOptions {
  /** Default Node.js and process metrics, unprefixed as stock dashboards expect. Default true. */
  readonly defaultMetrics?: boolean;
  /**
   * `<ns>build_info{service,profile,version,commit} 1`: the info-metric idiom, so the profile is a label to join
   * on instead of a name prefix, without adding labels to every series.
   */
  readonly build?: {
    readonly service: string;
    readonly profile: string;
    readonly version: string;
    readonly commit: string;
  };
}

/** A service's metric registry; every metric it creates is named `<prefix><name>`. */
export class ServiceMetrics {
  readonly registry: Registry;
  readonly prefix: string;

  constructor(prefix: string = METRIC_NAMESPACE, options: ServiceMetricsOptions = {}) {
    this.registry = new Registry();
    this.prefix = prefix;
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
    if (options.build !== undefined) {
      this.gauge('build_info', 'Always 1: the service, its protocol profile, version and commit', [
        'service',
        'profile',
        'version',
        'commit',
      ]).set({ ...options.build }, 1);
    }
  }

  /** `collect`: runs at each scrape (a total kept elsewhere, set with reset() + inc()). */
  counter<L extends string = never>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    collect?: (counter: Counter<L>) => void | Promise<void>,
  ): Counter<L> {
    return new Counter<L>(this.#scraped(name, help, labelNames, collect));
  }

  gauge<L extends string = never>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    collect?: (gauge: Gauge<L>) => void | Promise<void>,
  ): Gauge<L> {
    return new Gauge<L>(this.#scraped(name, help, labelNames, collect));
  }

  /**
   * What a counter and a gauge are made of: the prefixed name, this registry, and a scrape-time `collect` that a
   * failing or hanging source cannot break the scrape with (guardedCollect resets the metric instead).
   */
  #scraped<M extends { reset(): void }, L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    collect: ((metric: M) => void | Promise<void>) | undefined,
  ) {
    return {
      name: this.prefix + name,
      help,
      labelNames,
      registers: [this.registry],
      ...(collect
        ? {
            collect(this: M) {
              return guardedCollect(
                () => collect(this),
                () => this.reset(),
              );
            },
          }
        : {}),
    };
  }

  histogram<L extends string = never>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    buckets: readonly number[] = LATENCY_BUCKETS,
  ): Histogram<L> {
    return new Histogram<L>({
      name: this.prefix + name,
      help,
      labelNames,
      buckets: [...buckets],
      registers: [this.registry],
    });
  }

  /** Text exposition format (Prometheus 0.0.4). */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/**
 * `<ns>dependency_up{dependency}`: 1 when the readiness check of a dependency (store, Redis, a chain's API)
 * passes at scrape time, else 0, so "PostgreSQL/Redis down" is an alert, not a log line (issue 16 item 3).
 */
export function installDependencyMetrics(
  metrics: ServiceMetrics,
  timeoutMs = 2000,
): { add(name: string, check: () => unknown): void } {
  const checks = new Map<string, () => unknown>();
  metrics.gauge(
    'dependency_up',
    'Readiness check of each dependency at scrape time: 1 up, 0 down',
    ['dependency'],
    async (gauge) => {
      const names = [...checks.keys()];
      const results = await Promise.all(
        names.map(async (name) => {
          let timer: NodeJS.Timeout | undefined;
          const timeout = new Promise<false>((resolve) => {
            timer = setTimeout(() => resolve(false), timeoutMs);
          });
          try {
            return (await Promise.race([Promise.resolve().then(checks.get(name)), timeout])) !== false;
          } catch {
            return false;
          } finally {
            clearTimeout(timer);
          }
        }),
      );
      gauge.reset();
      for (const [i, name] of names.entries()) gauge.set({ dependency: name }, results[i] ? 1 : 0);
    },
  );
  return { add: (name, check) => checks.set(name, check) };
}

/** Adds the HTTP request histogram (route pattern, method, status) and `GET /metrics`. */
export function installMetrics(app: FastifyInstance, metrics: ServiceMetrics, reuseMs = 0): void {
  const duration = metrics.histogram(
    'http_request_duration_seconds',
    'HTTP request duration by route pattern, method and status code',
    ['route', 'method', 'status_code'],
  );
  const observers = new Map<string, (seconds: number) => void>();
  /**
   * One labelled child per route, method and status, kept: prom-client's `observe(labels, value)` takes
   * a fresh label object and status string per request. The route pattern, never the raw URL, keeps
   * both the label cardinality and this cache bounded.
   */
  const observerOf = (route: string, method: string, status: number) => {
    const key = `${status} ${method} ${route}`;
    let observe = observers.get(key);
    if (observe === undefined) {
      // The child's observe is a closure over its labels, not a method needing `this`.
      observe = duration.labels({ route, method, status_code: String(status) }).observe;
      observers.set(key, observe);
    }
    return observe;
  };
  // Callback style: it runs for every response; no promise per request (P113).
  app.addHook('onResponse', (request, reply, done) => {
    observerOf(
      request.routeOptions.url ?? 'unmatched',
      request.method,
      reply.statusCode,
    )(reply.elapsedTime / 1000);
    done();
  });
  // P485: a scrape runs collectors that ask the store and the chains (wallet balances, dependency_up); scrapes in
  // flight together (or within PROBE_REUSE_MS, P525) share one exposition.
  const exposition = sharedWhileRunning(() => metrics.exposition(), reuseMs);
  app.get(
    '/metrics',
    {
      schema: { hide: true },
      config: LOAD_SHEDDING_EXEMPT,
    },
    async (_request, reply) => {
      const { contentType, body } = await exposition();
      return reply.type(contentType).send(body);
    },
  );
}

/** How long one collector may take before the scrape goes on without its samples. */
const COLLECT_TIMEOUT_MS = 1000;

/**
 * A collector that reads a dependency (the store, a chain's API) fails or hangs while that dependency is
 * down: the scrape must still answer, with that metric left without samples (`reset`: no stale or false
 * value), or Prometheus sees the whole service down and ServiceDown fires instead of DependencyDown.
 */
async function guardedCollect(collect: () => void | Promise<void>, reset: () => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      collect(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('collector timed out')), COLLECT_TIMEOUT_MS);
      }),
    ]);
  } catch {
    reset();
  } finally {
    clearTimeout(timer);
  }
}
