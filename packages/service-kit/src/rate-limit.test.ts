// Rate limits against the real Redis at REDIS_URL: shared budget across instances, 429 + Retry-After +
// E700, and TRUST_PROXY deciding whose address counts. DECISIONS D17.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, SHARED_ENV_PROPERTIES, type SharedConfig } from './config.ts';
import { rateLimitPerIp } from './rate-limit.ts';
import { createService } from './service.ts';

const REDIS_URL = process.env['REDIS_URL'];
const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

async function limitedApp(options: {
  keyPrefix: string;
  env?: Record<string, string>;
  redis?: boolean;
  max?: number;
}) {
  const config = loadConfig<SharedConfig>(SHARED_ENV_PROPERTIES, {
    LOG_LEVEL: 'silent',
    ...(options.redis === false || !REDIS_URL ? {} : { REDIS_URL }),
    ...options.env,
  });
  const app = await createService({
    name: 'rl-test',
    version: '1',
    config,
    rateLimit: { keyPrefix: options.keyPrefix },
  });
  app.post('/v2/thing', { config: rateLimitPerIp(options.max ?? 3, '1 minute') }, async (req) => ({
    ip: req.ip,
  }));
  app.get('/open', async (req) => ({ ip: req.ip }));
  apps.push(app);
  return app;
}

describe.skipIf(!REDIS_URL)('rate limit with the Redis store', () => {
  it('answers the request over the limit with 429, Retry-After and E700', async () => {
    const app = await limitedApp({ keyPrefix: `test:${randomUUID()}:` });
    await app.ready();
    for (let i = 0; i < 3; i++) {
      const ok = await app.inject({ method: 'POST', url: '/v2/thing', payload: {} });
      expect(ok.statusCode).toBe(200);
    }
    const limited = await app.inject({ method: 'POST', url: '/v2/thing', payload: {} });
    expect(limited.statusCode).toBe(429);
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.json()).toEqual({
      error: { code: 'PROTO-E700', message: expect.stringContaining('Rate limit exceeded'), retryable: true },
    });
    // Routes without a limit stay open.
    expect((await app.inject({ method: 'GET', url: '/open' })).statusCode).toBe(200);
  });

  it('shares one budget between two instances on the same Redis', async () => {
    const keyPrefix = `test:${randomUUID()}:`;
    const a = await limitedApp({ keyPrefix });
    const b = await limitedApp({ keyPrefix });
    await Promise.all([a.ready(), b.ready()]);
    const codes: number[] = [];
    for (const app of [a, b, a, b, a]) {
      codes.push((await app.inject({ method: 'POST', url: '/v2/thing', payload: {} })).statusCode);
    }
    expect(codes).toEqual([200, 200, 200, 429, 429]);
  });

  it('keeps separate budgets under separate key prefixes (no cross-test bleed)', async () => {
    const a = await limitedApp({ keyPrefix: `test:${randomUUID()}:`, max: 1 });
    const b = await limitedApp({ keyPrefix: `test:${randomUUID()}:`, max: 1 });
    expect((await a.inject({ method: 'POST', url: '/v2/thing', payload: {} })).statusCode).toBe(200);
    expect((await b.inject({ method: 'POST', url: '/v2/thing', payload: {} })).statusCode).toBe(200);
    expect((await a.inject({ method: 'POST', url: '/v2/thing', payload: {} })).statusCode).toBe(429);
  });
});

/** A route taking `units` of one budget of 10 per minute in one step (as POST /verify/batch does, P78). */
async function unitsApp(options: { keyPrefix: string; redis: boolean; env?: Record<string, string> }) {
  const app = await limitedApp(options);
  app.post('/units/:n', async (req, reply) => {
    const taken = await app.takeRateLimitUnits!(
      'batch:client',
      Number((req.params as { n: string }).n),
      10,
      60_000,
    );
    return reply.code(taken.taken ? 200 : 429).send(taken);
  });
  await app.ready();
  return app;
}

describe('several units of a budget in one step (P78)', () => {
  for (const redis of [false, ...(REDIS_URL ? [true] : [])]) {
    it(`takes all or none, and concurrent takers never exceed the budget (${redis ? 'Redis' : 'in memory'})`, async () => {
      const app = await unitsApp({ keyPrefix: `test:${randomUUID()}:`, redis });
      const take = async (n: number) => (await app.inject({ method: 'POST', url: `/units/${n}` })).json();
      expect(await take(4)).toMatchObject({ taken: true, current: 4 });
      const refused = await take(7);
      expect(refused).toMatchObject({ taken: false, current: 4 });
      expect(refused.ttlMs).toBeGreaterThan(0);
      expect(refused.ttlMs).toBeLessThanOrEqual(60_000);
      const concurrent = await Promise.all([take(4), take(4), take(4)]);
      expect(concurrent.filter((t) => t.taken)).toHaveLength(1);
      expect(await take(2)).toMatchObject({ taken: true, current: 10 });
      expect(await take(1)).toMatchObject({ taken: false, current: 10 });
    });
  }

  it('counts in memory, still all or none, while Redis does not answer', async () => {
    // Nothing listens on port 1: the first command fails and the budget is counted in this process.
    const app = await unitsApp({
      keyPrefix: `test:${randomUUID()}:`,
      redis: false,
      env: { REDIS_URL: 'redis://127.0.0.1:1' },
    });
    const take = async (n: number) => (await app.inject({ method: 'POST', url: `/units/${n}` })).json();
    expect(await take(6)).toMatchObject({ taken: true, current: 6 });
    expect(await take(5)).toMatchObject({ taken: false, current: 6 });
    expect(await take(4)).toMatchObject({ taken: true, current: 10 });
  });
});

describe('client address and TRUST_PROXY (listening server)', () => {
  async function listen(env: Record<string, string>) {
    const app = await limitedApp({ keyPrefix: `test:${randomUUID()}:`, env, max: 2 });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    return `http://127.0.0.1:${port}`;
  }
  const post = (base: string, forwardedFor?: string) =>
    fetch(`${base}/v2/thing`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
      },
      body: '{}',
    });

  it('ignores a forged X-Forwarded-For from an untrusted peer (TRUST_PROXY=false)', async () => {
    const base = await listen({ TRUST_PROXY: 'false' });
    const statuses: number[] = [];
    const ips: string[] = [];
    for (const forged of ['1.1.1.1', '2.2.2.2', '3.3.3.3']) {
      const res = await post(base, forged);
      statuses.push(res.status);
      if (res.status === 200) ips.push(((await res.json()) as { ip: string }).ip);
    }
    expect(ips).toEqual(['127.0.0.1', '127.0.0.1']);
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('ignores X-Forwarded-For when the peer is not in the trusted list', async () => {
    const base = await listen({ TRUST_PROXY: '10.0.0.0/8' });
    const res = await post(base, '9.9.9.9');
    expect(((await res.json()) as { ip: string }).ip).toBe('127.0.0.1');
  });

  it('uses X-Forwarded-For from a trusted proxy, one budget per client', async () => {
    const base = await listen({ TRUST_PROXY: '127.0.0.1' });
    const first = await post(base, '203.0.113.7');
    expect(((await first.json()) as { ip: string }).ip).toBe('203.0.113.7');
    expect((await post(base, '203.0.113.7')).status).toBe(200);
    expect((await post(base, '203.0.113.7')).status).toBe(429);
    expect((await post(base, '198.51.100.1')).status).toBe(200);
  });
});
