// Requests Node's HTTP parser refuses before Fastify sees them (a request past REQUEST_TIMEOUT_MS, a malformed
// request line, headers over Node's limit) are answered like every other error: the shared error shape, a request
// id, the security headers, `no-store`, counted in proto_http_errors_total. Over real HTTP on raw sockets; P170.
import { rawConnection } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/test-support.ts';

const TIMEOUT_MS = 1_500;
/** The timeout, Node's check of it (a quarter of it here) and a loaded machine's slack. */
const CLOSED_WITHIN_MS = 8_000;

let running: RunningApp;

beforeAll(async () => {
  running = await startApp({ VERIFY_WORKERS: '1', REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) });
});
afterAll(async () => {
  await running?.close();
});

/** Sends `bytes` on a new connection; resolves with all the service wrote once it closed (or after `ms`). */
async function exchange(bytes: string, ms = CLOSED_WITHIN_MS, destroyAfterWrite = false): Promise<string> {
  const connection = await rawConnection(running.url);
  await connection.write(bytes);
  if (destroyAfterWrite) connection.destroy();
  return connection.closed(ms);
}

interface Answer {
  readonly status: number;
  readonly headers: Map<string, string>;
  readonly body: unknown;
}

/** The last HTTP/1.1 answer in `raw` (earlier ones on the same connection are skipped). */
function lastAnswer(raw: string): Answer {
  const start = raw.lastIndexOf('HTTP/1.1 ');
  expect(start, raw).toBeGreaterThanOrEqual(0);
  const text = raw.slice(start);
  const split = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
  const headers = new Map(
    lines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as const;
    }),
  );
  const body = text.slice(split + 4);
  expect(Number(headers.get('content-length')), raw).toBe(Buffer.byteLength(body));
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

async function errorCount(code: string): Promise<number> {
  const text = await (await fetch(`${running.url}/metrics`)).text();
  const match = new RegExp(`^proto_http_errors_total\\{code="${code}"\\} (\\S+)$`, 'm').exec(text);
  return match === null ? 0 : Number(match[1]);
}

function expectKitAnswer(answer: Answer, status: number, code: string, retryable: boolean): void {
  expect(answer.status).toBe(status);
  expect(answer.body).toEqual({ error: { code, message: expect.any(String), retryable } });
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
  expect(answer.headers.get('x-frame-options')).toBe('DENY');
  expect(answer.headers.get('strict-transport-security')).toMatch(/max-age=63072000/);
  expect(answer.headers.get('content-security-policy')).toBeDefined();
  expect(answer.headers.get('cache-control')).toBe('no-store');
  expect(answer.headers.get('connection')).toBe('close');
}

describe('errors raised by the HTTP parser are answered in the shared error shape', () => {
  it('a request past REQUEST_TIMEOUT_MS: 408 REQUEST_TIMEOUT, retryable, counted', async () => {
    const before = await errorCount('REQUEST_TIMEOUT');
    const raw = await exchange(
      'POST /verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{',
    );
    expectKitAnswer(lastAnswer(raw), 408, 'REQUEST_TIMEOUT', true);
    // The timed-out request's own id, when it gave one.
    const named = await exchange(
      'POST /verify HTTP/1.1\r\nHost: x\r\nX-Request-Id: slow-client-1\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{',
    );
    expect(lastAnswer(named)).toMatchObject({ status: 408 });
    expect(lastAnswer(named).headers.get('x-request-id')).toBe('slow-client-1');
    expect(await errorCount('REQUEST_TIMEOUT')).toBe(before + 2);
  }, 25_000);

  it('a malformed request line: 400 BAD_REQUEST, counted', async () => {
    const before = await errorCount('BAD_REQUEST');
    const raw = await exchange('GET /health HTTP/1.1 <script>\r\nHost: x\r\n\r\n');
    expectKitAnswer(lastAnswer(raw), 400, 'BAD_REQUEST', false);
    expect(raw).not.toContain('<script>');
    expect(await errorCount('BAD_REQUEST')).toBe(before + 1);
  });

  it("headers over Node's limit: 431 HEADERS_TOO_LARGE, counted", async () => {
    const before = await errorCount('HEADERS_TOO_LARGE');
    const raw = await exchange(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expectKitAnswer(lastAnswer(raw), 431, 'HEADERS_TOO_LARGE', false);
    expect(await errorCount('HEADERS_TOO_LARGE')).toBe(before + 1);
  });

  it('a malformed request after a whole one on the same connection: the first answer stays whole', async () => {
    const raw = await exchange('GET /health HTTP/1.1\r\nHost: x\r\n\r\nNOT HTTP AT ALL\r\n\r\n');
    expect(raw.match(/HTTP\/1\.1 200 /g)).toHaveLength(1);
    expectKitAnswer(lastAnswer(raw), 400, 'BAD_REQUEST', false);
  });

  it('a client gone before the answer costs nothing and the service goes on', async () => {
    await Promise.all(Array.from({ length: 20 }, () => exchange('BROKEN\r\n\r\n', CLOSED_WITHIN_MS, true)));
    const health = await fetch(`${running.url}/health`);
    expect(health.status).toBe(200);
  });
});
