// Limits of the /v2 endpoints: the four response headers, the 1 MB body limit, one rate-limit budget per
// client IP shared through Redis, and TRUST_PROXY. Covers D17 (issue item 4).
import { randomUUID } from 'node:crypto';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORD_ROUTES } from './kinds.ts';
import {
  errorOf,
  example,
  post,
  type RecordsApp,
  startRecordsApp,
  TEST_OPERATOR_TOKEN,
  testRedisUrl,
  withFields,
} from './test-support.ts';

const EXPECTED_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'strict-transport-security': 'max-age=63072000; includeSubDomains',
  'cache-control': 'no-store',
};

function expectV2Headers(response: LightMyRequestResponse | Response, what: string): void {
  for (const [name, value] of Object.entries(EXPECTED_HEADERS)) {
    const actual =
      response instanceof Response
        ? response.headers.get(name)
        : (response.headers[name] as string | undefined);
    expect(actual, `${name} on ${what}`).toBe(value);
  }
}

/** A cheap POST that counts against the budget (it fails validation: 400). */
const probe = (app: RecordsApp['app'], headers: Record<string, string> = {}, path = '/v2/dispute/record') =>
  app.inject({ method: 'POST', url: path, payload: {}, headers });

/** Probes until the budget is spent; the 429 answer. */
async function untilLimited(app: RecordsApp['app']): Promise<LightMyRequestResponse> {
  for (let i = 0; i < 20; i++) {
    const response = await probe(app);
    if (response.statusCode === 429) return response;
  }
  throw new Error('no 429 within 20 requests');
}

describe('/v2 response headers and body limit', () => {
  let target: StoreTarget;
  let service: RecordsApp;

  beforeAll(async () => {
    target = await createStoreTarget('sqlite', 'v2-limits');
    service = await startRecordsApp({ store: await target.open(), rateLimitPerMinute: 10 });
  });
  afterAll(async () => {
    await service?.close();
    await target?.cleanup();
  });

  it('answers a body over 1 MB with 413 and a code, and takes one just under it', async () => {
    const record = example('rights_declaration');
    const sized = (bytes: number) => {
      const base = JSON.stringify({ ...record, jurisdiction: '' }).length;
      return JSON.stringify({ ...record, jurisdiction: 'x'.repeat(bytes - base) });
    };
    const send = (payload: string) =>
      service.app.inject({
        method: 'POST',
        url: '/v2/rights/declaration',
        // An administrative write: the size, not the signature, is under test here.
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_OPERATOR_TOKEN}` },
        payload,
      });
    const big = await send(sized(1_048_577));
    expect(big.statusCode).toBe(413);
    expect(errorOf(big).code).toBe('PAYLOAD_TOO_LARGE');
    const fits = await send(sized(1_048_576));
    expect(fits.statusCode, fits.body.slice(0, 200)).toBe(201);
  });

  it('sends the four headers with their exact values on every kind of /v2 response', async () => {
    const { app } = service;
    const cert = example('commissioning_certificate');
    const responses: [string, LightMyRequestResponse][] = [
      ['201', await post(app, '/v2/lifecycle/commission', cert)],
      ['200 re-post', await post(app, '/v2/lifecycle/commission', cert)],
      ['409', await post(app, '/v2/lifecycle/commission', withFields(cert, { purpose: 'other' }))],
      ['200 GET', await app.inject({ method: 'GET', url: `/v2/lifecycle/commission/${cert['agent_id']}` })],
      ['404 unknown id', await app.inject({ method: 'GET', url: '/v2/dispute/record/none-such' })],
      ['400 bad id', await app.inject({ method: 'GET', url: '/v2/dispute/record/a%20b' })],
      ['404 unknown /v2 path', await app.inject({ method: 'GET', url: '/v2/nothing/here' })],
      ['405', await app.inject({ method: 'DELETE', url: '/v2/dispute/record' })],
      [
        '413',
        await app.inject({
          method: 'POST',
          url: '/v2/dispute/record',
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ dispute_record: { pad: 'x'.repeat(1_100_000) } }),
        }),
      ],
      ['429', await untilLimited(app)],
    ];
    for (const [what, response] of responses) expectV2Headers(response, what);
    expect(responses.map(([what, r]) => `${what}:${r.statusCode}`)).toEqual([
      '201:201',
      '200 re-post:200',
      '409:409',
      '200 GET:200',
      '404 unknown id:404',
      '400 bad id:400',
      '404 unknown /v2 path:404',
      '405:405',
      '413:413',
      '429:429',
    ]);
    // Outside /v2 the Cache-Control is the kit's (P195: a probe is never stored), not the records plugin's.
    const health = await app.inject({ method: 'GET', url: '/health' });
    expect(health.headers['cache-control']).toBe('no-store');
  });
});

describe('/v2 rate limit', () => {
  let target: StoreTarget;
  const apps: RecordsApp[] = [];

  beforeAll(async () => {
    target = await createStoreTarget('sqlite', 'v2-rate-limit');
  });
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.close()));
    await target?.cleanup();
  });

  async function start(env: Record<string, string> = {}, rateLimitKeyPrefix = `test:${randomUUID()}:`) {
    const app = await startRecordsApp({
      store: await target.open(),
      rateLimitPerMinute: 100,
      rateLimitKeyPrefix,
      env,
    });
    apps.push(app);
    return app;
  }

  it('allows 100 POSTs per minute per client IP across all /v2 routes, then 429 with E700 and Retry-After', async () => {
    const { app } = await start();
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) {
      const route = RECORD_ROUTES[i % RECORD_ROUTES.length]!; // one budget shared by every route
      statuses.push((await probe(app, {}, route.path)).statusCode);
    }
    expect(statuses.every((s) => s === 400)).toBe(true);
    const limited = await probe(app, {}, '/v2/lifecycle/transition');
    expect(limited.statusCode).toBe(429);
    expect(errorOf(limited)).toMatchObject({ code: 'PROTO-E700', retryable: true });
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // GETs are not limited (SPEC.md: the limit applies to POST /v2).
    expect((await app.inject({ method: 'GET', url: '/v2/dispute/record/none-such' })).statusCode).toBe(404);
  });

  it('ignores X-Forwarded-For from an untrusted peer (TRUST_PROXY unset)', async () => {
    const { app } = await start();
    for (let i = 0; i < 100; i++) await probe(app, { 'x-forwarded-for': `198.51.100.${i}` });
    const forged = await probe(app, { 'x-forwarded-for': '192.0.2.77' });
    expect(forged.statusCode).toBe(429);
  });

  it('counts the forwarded client IP when the peer is a trusted proxy (TRUST_PROXY)', async () => {
    const { app } = await start({ TRUST_PROXY: '127.0.0.1' });
    for (let i = 0; i < 100; i++) await probe(app, { 'x-forwarded-for': '198.51.100.1' });
    expect((await probe(app, { 'x-forwarded-for': '198.51.100.1' })).statusCode).toBe(429);
    expect((await probe(app, { 'x-forwarded-for': '198.51.100.2' })).statusCode).toBe(400);
    // A forged first hop does not escape: only the address the trusted proxy saw counts.
    const spoofed = await probe(app, { 'x-forwarded-for': '192.0.2.1, 198.51.100.1' });
    expect(spoofed.statusCode).toBe(429);
  });

  it('shares one budget between two service instances on one Redis', async (context) => {
    const redisUrl = testRedisUrl();
    if (redisUrl === undefined) context.skip();
    const prefix = `test:${randomUUID()}:`; // unique per test: no other run shares these keys
    const one = await start({ REDIS_URL: redisUrl! }, prefix);
    const two = await start({ REDIS_URL: redisUrl! }, prefix);
    for (let i = 0; i < 100; i++) {
      const response = await probe(i % 2 === 0 ? one.app : two.app);
      expect(response.statusCode, `request ${i + 1}`).toBe(400);
    }
    const fromOne = await probe(one.app);
    const fromTwo = await probe(two.app);
    expect(fromOne.statusCode).toBe(429);
    expect(fromTwo.statusCode).toBe(429);
    expect(errorOf(fromTwo).code).toBe('PROTO-E700');

    // A third instance with its own prefix has its own budget: the sharing comes from the common store.
    const other = await start({ REDIS_URL: redisUrl! });
    expect((await probe(other.app)).statusCode).toBe(400);
  });
});
