// The full response header set of POST /verify, GET /health and an error answer, as written on the wire
// (names with their case, values, order), so that moving the security headers off Helmet's per-request
// middleware (P113) cannot change a byte the client sees.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, sampleBundle, startApp } from './test-support.ts';

/** The values that change between responses (date, the rate-limit window) are replaced by a placeholder. */
function rawHeaderLines(raw: readonly string[]): string[] {
  const lines: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    let value = raw[i + 1]!;
    if (name.toLowerCase() === 'date') value = '<date>';
    if (name === 'x-ratelimit-remaining' || name === 'x-ratelimit-reset') value = '<n>';
    lines.push(`${name}: ${value}`);
  }
  return lines;
}

function exchange(
  url: string,
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; headers: string[] }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}${path}`,
      {
        method,
        headers: {
          'x-request-id': 'pinned-id',
          ...(body === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: rawHeaderLines(res.rawHeaders) }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Helmet's set under the kit's settings (service.ts), in the order and case it writes them. */
const SECURITY_HEADERS = [
  "Content-Security-Policy: default-src 'self';base-uri 'self';font-src 'self' https: data:;form-action 'self';frame-ancestors 'self';img-src 'self' data:;object-src 'none';script-src 'self';script-src-attr 'none';style-src 'self' https: 'unsafe-inline';upgrade-insecure-requests",
  'Cross-Origin-Opener-Policy: same-origin',
  'Cross-Origin-Resource-Policy: same-origin',
  'Origin-Agent-Cluster: ?1',
  'Referrer-Policy: no-referrer',
  'Strict-Transport-Security: max-age=63072000; includeSubDomains',
  'X-Content-Type-Options: nosniff',
  'X-DNS-Prefetch-Control: off',
  'X-Download-Options: noopen',
  'X-Frame-Options: DENY',
  'X-Permitted-Cross-Domain-Policies: none',
  'X-XSS-Protection: 0',
];
const CONNECTION = ['Date: <date>', 'Connection: keep-alive', 'Keep-Alive: timeout=72'];

describe('response headers on the wire', () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it('POST /verify: the security set, then the request id, rate limit, cache and body headers', async () => {
    const bundle = sampleBundle({ tier: 'routine', entries: 2 });
    const body = JSON.stringify({ signed_bundle: bundle.signed_bundle });
    const verify = await exchange(app.url, 'POST', '/verify', body);
    expect(verify.status).toBe(200);
    expect(verify.headers).toEqual([
      ...SECURITY_HEADERS,
      'x-request-id: pinned-id',
      'x-ratelimit-limit: 600',
      'x-ratelimit-remaining: <n>',
      'x-ratelimit-reset: <n>',
      'x-verification-cache: miss',
      'vary: Accept',
      'content-type: application/json; charset=utf-8',
      'cache-control: no-cache',
      expect.stringMatching(/^content-length: \d+$/),
      ...CONNECTION,
    ]);
  });

  it('GET /health: the same security set before its own headers', async () => {
    const health = await exchange(app.url, 'GET', '/health');
    expect(health.status).toBe(200);
    expect(health.headers).toEqual([
      ...SECURITY_HEADERS,
      'x-request-id: pinned-id',
      'content-type: application/json; charset=utf-8',
      'vary: Accept',
      'cache-control: no-store',
      expect.stringMatching(/^content-length: \d+$/),
      ...CONNECTION,
    ]);
  });

  it('an error answer (400 on a malformed request) carries the same set', async () => {
    const error = await exchange(app.url, 'POST', '/verify', '{"signed_bundle":1}');
    expect(error.status).toBe(400);
    expect(error.headers).toEqual([
      ...SECURITY_HEADERS,
      'x-request-id: pinned-id',
      'x-ratelimit-limit: 600',
      'x-ratelimit-remaining: <n>',
      'x-ratelimit-reset: <n>',
      'content-type: application/json; charset=utf-8',
      'vary: Accept',
      'cache-control: no-store',
      expect.stringMatching(/^content-length: \d+$/),
      ...CONNECTION,
    ]);
  });
});
