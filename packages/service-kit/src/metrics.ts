// Prometheus metrics: one registry per service, default process metrics, an HTTP duration histogram,
// all names under the profile's prefix (`proto_`). SPEC.md Events (metrics), docs/architecture.md §3 (prom-client).
import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { LOAD_SHEDDING_EXEMPT } from './load-shedding.ts';

export type { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Seconds; from sub-millisecond cache hits to multi-second verifications of large bundles. */
export const LATENCY_BUCKETS: readonly number[] = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** A service's metric registry; every metric it creates is named `<prefix><name>`. */
export class ServiceMetrics {
  readonly registry: Registry;
  readonly prefix: string;

  constructor(prefix: string, options: { readonly defaultMetrics?: boolean } = {}) {
    this.registry = new Registry();
    this.prefix = prefix;
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix });
  }

  counter<L extends string = never>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return new Counter<L>({ name: this.prefix + name, help, labelNames, registers: [this.registry] });
  }

  gauge<L extends string = never>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    collect?: (gauge: Gauge<L>) => void | Promise<void>,
  ): Gauge<L> {
    return new Gauge<L>({
      name: this.prefix + name,
      help,
      labelNames,
      registers: [this.registry],
      ...(collect
        ? {
            collect(this: Gauge<L>) {
              return collect(this);
            },
          }
        : {}),
    });
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

/** Adds the HTTP request histogram (route pattern, method, status) and `GET /metrics`. */
export function installMetrics(app: FastifyInstance, metrics: ServiceMetrics): void {
  const duration = metrics.histogram(
    'http_request_duration_seconds',
    'HTTP request duration by route pattern, method and status code',
    ['route', 'method', 'status_code'],
  );
  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, never the raw URL, keeps label cardinality bounded.
    const route = request.routeOptions.url ?? 'unmatched';
    duration.observe(
      { route, method: request.method, status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
  app.get(
    '/metrics',
    {
      schema: { hide: true },
      config: LOAD_SHEDDING_EXEMPT,
    },
    async (_request, reply) => {
      const { contentType, body } = await metrics.exposition();
      return reply.type(contentType).send(body);
    },
  );
}
