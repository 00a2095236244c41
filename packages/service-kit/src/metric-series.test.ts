// The per-label-set fast paths (P144) leave /metrics exactly as prom-client's own inc/observe would, through
// reset() and remove(), past the cache's cap, and for a service's routes and statuses over HTTP.
import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, SHARED_ENV_PROPERTIES, type SharedConfig } from './config.ts';
import { CounterSeries, HistogramSeries, MAX_CACHED_SERIES } from './metric-series.ts';
import { LATENCY_BUCKETS } from './metrics.ts';
import { createService } from './service.ts';

function pair() {
  const make = () => {
    const registry = new Registry();
    const histogram = new Histogram({
      name: 'h_seconds',
      help: 'h',
      labelNames: ['route', 'status_code'],
      buckets: [...LATENCY_BUCKETS],
      registers: [registry],
    });
    const counter = new Counter({
      name: 'c_total',
      help: 'c',
      labelNames: ['a', 'b'],
      registers: [registry],
    });
    return { registry, histogram, counter };
  };
  return { plain: make(), fast: make() };
}

/** Values at, between, below and above the buckets' bounds. */
const VALUES = [0, 0.0005, 0.0007, 0.001, 0.003, 0.05, 1, 9.99, 10, 12, 400];

describe('CounterSeries and HistogramSeries', () => {
  it('expose what prom-client exposes for the same calls, through reset() and remove()', async () => {
    const { plain, fast } = pair();
    const h = new HistogramSeries(fast.histogram, ['route', 'status_code']);
    const c = new CounterSeries(fast.counter, ['a', 'b']);
    const drive = (round: number) => {
      for (const [i, value] of VALUES.entries()) {
        const labels = { route: `/r${(i + round) % 3}`, status_code: String(200 + (i % 2) * 204) };
        plain.histogram.observe(labels, value);
        h.observe(labels, value);
        const counted = { a: `x${i % 4}`, b: i % 3 === 0 ? 'same' : `y${round}` };
        plain.counter.inc(counted);
        c.inc(counted);
      }
    };
    drive(0);
    drive(1);
    expect(await fast.registry.metrics()).toBe(await plain.registry.metrics());
    for (const side of [plain, fast]) {
      side.histogram.remove({ route: '/r1', status_code: '200' });
      side.counter.remove({ a: 'x0', b: 'same' });
    }
    drive(2);
    expect(await fast.registry.metrics()).toBe(await plain.registry.metrics());
    for (const side of [plain, fast]) {
      side.histogram.reset();
      side.counter.reset();
    }
    drive(3);
    drive(0);
    const text = await fast.registry.metrics();
    expect(text).toBe(await plain.registry.metrics());
    expect(text).toMatch(/^h_seconds_bucket\{le="\+Inf",route="\/r0",status_code="200"\} \d+$/m);
  });

  it('keeps at most its cap of label sets and still counts the ones past it', async () => {
    const { plain, fast } = pair();
    const h = new HistogramSeries(fast.histogram, ['route', 'status_code'], 3);
    const c = new CounterSeries(fast.counter, ['a', 'b'], 3);
    for (let round = 0; round < 3; round++)
      for (let i = 0; i < 40; i++) {
        const labels = { route: `/attacker/${i}`, status_code: '404' };
        plain.histogram.observe(labels, i / 1000);
        h.observe(labels, i / 1000);
        plain.counter.inc({ a: String(i), b: 'z' });
        c.inc({ a: String(i), b: 'z' });
      }
    expect(h.size).toBe(3);
    expect(c.size).toBe(3);
    expect(await fast.registry.metrics()).toBe(await plain.registry.metrics());
  });

  it('refuses a value that is not a finite number as prom-client does', () => {
    const { fast } = pair();
    const h = new HistogramSeries(fast.histogram, ['route', 'status_code']);
    h.observe({ route: '/', status_code: '200' }, 1);
    expect(() => h.observe({ route: '/', status_code: '200' }, Number.NaN)).toThrow(TypeError);
  });
});

describe("the kit's HTTP duration histogram over HTTP", () => {
  const apps: FastifyInstance[] = [];
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
  });

  it('counts per route, method and status code; unknown URLs share one series', async () => {
    const config = loadConfig<SharedConfig>(SHARED_ENV_PROPERTIES, { LOG_LEVEL: 'silent' });
    const app = await createService({ name: 'series-test', version: '1.0.0', config, rateLimit: false });
    apps.push(app);
    app.get('/teapot', async (_request, reply) => reply.code(418).send({ ok: false }));
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    const hit = async (path: string, method = 'GET') => (await fetch(`${base}${path}`, { method })).status;
    for (let i = 0; i < 3; i++) expect(await hit('/health')).toBe(200);
    for (let i = 0; i < 2; i++) expect(await hit('/teapot')).toBe(418);
    // More distinct URLs than the cache holds: an attacker chooses the URL.
    for (let i = 0; i < MAX_CACHED_SERIES + 20; i++) expect(await hit(`/no/such/${i}`)).toBe(404);
    expect(await hit('/no/such/thing', 'DELETE')).toBe(404);
    const text = await (await fetch(`${base}/metrics`)).text();
    const count = (route: string, method: string, status: number) =>
      text.match(
        new RegExp(
          `^proto_http_request_duration_seconds_count\\{route="${route}",method="${method}",status_code="${status}"\\} (\\d+)$`,
          'm',
        ),
      )?.[1];
    expect(count('/health', 'GET', 200)).toBe('3');
    expect(count('/teapot', 'GET', 418)).toBe('2');
    expect(count('unmatched', 'GET', 404)).toBe(String(MAX_CACHED_SERIES + 20));
    expect(count('unmatched', 'DELETE', 404)).toBe('1');
    const series = text.match(/^proto_http_request_duration_seconds_count\{/gm) ?? [];
    expect(series.length).toBe(4);
  });
});
