// P485: anonymous /ready and /metrics cost the operator's upstreams one request each. Every GET /ready ran every
// readiness check, and every GET /metrics every collector (dependency_up runs the same checks; the wallet balance
// asks the EVM node and Esplora), with nothing shared between requests in flight: forty concurrent probes from
// anyone were forty calls to the chain's API (a paid, rate-limited RPC provider in production, whose 429s then fail
// the worker's own calls). Now requests that arrive while a check or a scrape is running share its result: at most
// one call per dependency is in flight however many probes arrive. The real anchor service over HTTP, its
// transparency log played by a counting HTTP server that answers /root slowly, so the probes overlap.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp } from '../../src/testing/app.ts';

const PROBES = 40;
/** Each /root answer is held this long, so that all the probes of a burst arrive while the first is upstream. */
const HOLD_MS = 300;

describe('P485: concurrent probes share one upstream call per dependency', () => {
  let log: Server;
  let roots = 0;
  let target: StoreTarget;
  let app: FastifyInstance;
  let base: string;

  beforeAll(async () => {
    log = createServer((request, response) => {
      if (request.url === '/root') roots++;
      setTimeout(() => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"tree_size": 0}');
      }, HOLD_MS);
    });
    await new Promise<void>((resolve) => log.listen(0, '127.0.0.1', resolve));
    target = await createStoreTarget('sqlite', 'anchor-probe-fan-out');
    app = await testApp(
      { TL_URL: `http://127.0.0.1:${(log.address() as AddressInfo).port}` },
      await target.open(),
    );
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await target?.cleanup();
    await new Promise<void>((resolve) => log.close(() => resolve()));
  });

  const burst = async (path: string) => {
    roots = 0;
    const answers = await Promise.all(
      Array.from({ length: PROBES }, async () => {
        const res = await fetch(`${base}${path}`);
        await res.arrayBuffer();
        return res.status;
      }),
    );
    return { answers, roots };
  };

  it(`${PROBES} concurrent GET /ready: every one answered 200, the log asked a few times at most`, async () => {
    const { answers, roots: asked } = await burst('/ready');
    expect(answers.every((status) => status === 200)).toBe(true);
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThanOrEqual(3);
  });

  it(`${PROBES} concurrent GET /metrics: every one answered with dependency_up, the log asked a few times at most`, async () => {
    const { answers, roots: asked } = await burst('/metrics');
    expect(answers.every((status) => status === 200)).toBe(true);
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThanOrEqual(3);
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toMatch(/proto_dependency_up\{dependency="chain:transparency-log"\} 1/);
  });

  it('a probe after the burst asks again (results are shared while running, not kept)', async () => {
    const before = roots;
    const res = await fetch(`${base}/ready`);
    await res.arrayBuffer();
    expect(res.status).toBe(200);
    expect(roots).toBe(before + 1);
  });
});
