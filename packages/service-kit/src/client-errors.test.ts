// The parser's refusals as an operator reads them (P170, P187): the 408 of a request still arriving after
// REQUEST_TIMEOUT_MS names, in every log line about that request (at debug, its arrival too), the request id its
// answer carries, so the answer a client reports can be found in the log. Over real HTTP on a raw socket, the service kit's own service.
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, SHARED_ENV_PROPERTIES, type SharedConfig } from './config.ts';
import { createService } from './service.ts';

const TIMEOUT_MS = 1_000;
/** The timeout, Node's check of it and a loaded machine's slack. */
const CLOSED_WITHIN_MS = 8_000;

const written: string[] = [];
let app: FastifyInstance;
let port = 0;

beforeAll(async () => {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      written.push(String(chunk));
      done();
    },
  });
  app = await createService({
    name: 'test',
    version: '1',
    config: loadConfig<SharedConfig>(SHARED_ENV_PROPERTIES, {
      LOG_LEVEL: 'debug',
      REQUEST_TIMEOUT_MS: String(TIMEOUT_MS),
    }),
    rateLimit: false,
    logger: { stream },
  });
  app.post('/echo', async (request) => ({ got: request.body }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as { port: number }).port;
});
afterAll(async () => {
  await app?.close();
});

/** Sends `bytes` on a new connection and resolves with all the service wrote once it closed the connection. */
function exchange(bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setEncoding('utf8');
    let received = '';
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', () => undefined);
    const timer = setTimeout(() => socket.destroy(), CLOSED_WITHIN_MS);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.write(bytes);
  });
}

describe('a request still arriving after REQUEST_TIMEOUT_MS, sent without an X-Request-Id', () => {
  it('is logged under the request id its 408 carries, and under no other', async () => {
    const before = written.join('').split('\n').length;
    // Headers and the start of a body that never ends: the request reaches Fastify (which gives it an id),
    // then Node's whole-request timeout refuses it.
    const raw = await exchange(
      'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":',
    );
    expect(raw).toMatch(/^HTTP\/1\.1 408 /);
    const answered = /\r\nx-request-id: ([^\r]+)\r\n/i.exec(raw)?.[1];
    expect(answered, raw).toMatch(/^[0-9a-f-]{36}$/);
    // The log is written in batches (LOG_BATCH_MS): give it time to reach the stream.
    await new Promise((resolve) => setTimeout(resolve, 500));
    // This is the only request in the file: every line logged about it since it was sent.
    const lines = written
      .join('')
      .split('\n')
      .slice(before - 1)
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line['reqId'] !== undefined);
    const messages = lines.map((line) => line['msg']);
    expect(messages).toContain('incoming request');
    expect(lines.filter((line) => line['code'] === 'REQUEST_TIMEOUT')).toHaveLength(1);
    for (const line of lines) expect(line['reqId'], JSON.stringify(line)).toBe(answered);
  });
});
