// P525: P485 shares one upstream call among probes in flight together, but probes one after another (a client that
// waits for each answer, or many clients taking turns) still cost one upstream call each: GET /ready and GET /metrics
// answer anyone, and each asks the chain's API (in production a paid, rate-limited RPC provider). Now a check's or a
// scrape's settled result is reused for PROBE_REUSE_MS (default 1000) after it settles. The real anchor service over
// HTTP, its transparency log played by a counting HTTP server; the window set long (60 s) so that counting does not
// depend on how fast the probes run, and 0 for the control.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '@proto/service-kit';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testApp, testConfig } from '../../src/testing/app.ts';

const PROBES = 40;

describe('P525: sequential probes reuse a settled upstream call for PROBE_REUSE_MS', () => {
  let log: Server;
  let roots = 0;
  let target: StoreTarget;
  const apps: FastifyInstance[] = [];

  beforeAll(async () => {
    log = createServer((request, response) => {
      if (request.url === '/root') roots++;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"tree_size": 0}');
    });
    await new Promise<void>((resolve) => log.listen(0, '127.0.0.1', resolve));
    target = await createStoreTarget('sqlite', 'anchor-probe-sequential');
  }, 60_000);

  afterAll(async () => {
    for (const app of apps) await app.close();
    await target?.cleanup();
    await new Promise<void>((resolve) => log.close(() => resolve()));
  });

  const start = async (env: Record<string, string>) => {
    const app = await testApp(
      { TL_URL: `http://127.0.0.1:${(log.address() as AddressInfo).port}`, ...env },
      await target.open(),
    );
    apps.push(app);
    await app.listen({ port: 0, host: '127.0.0.1' });
    return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  };

  const oneByOne = async (base: string, path: string) => {
    roots = 0;
    for (let i = 0; i < PROBES; i++) {
      const res = await fetch(`${base}${path}`);
      await res.arrayBuffer();
      expect(res.status).toBe(200);
    }
    return roots;
  };

  it(`${PROBES} GET /ready one after another ask the log once, and ${PROBES} GET /metrics once`, async () => {
    const base = await start({ PROBE_REUSE_MS: '60000' });
    expect(await oneByOne(base, '/ready')).toBe(1);
    expect(await oneByOne(base, '/metrics')).toBeLessThanOrEqual(1);
  });

  it('PROBE_REUSE_MS=0: each probe asks again (P485 alone; the control)', async () => {
    const base = await start({ PROBE_REUSE_MS: '0' });
    expect(await oneByOne(base, '/ready')).toBe(PROBES);
  });

  it('PROBE_REUSE_MS past a minute stops the boot naming it', () => {
    let thrown: unknown;
    try {
      testConfig({ PROBE_REUSE_MS: '3600000' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).variables).toEqual(['PROBE_REUSE_MS']);
  });
});
