// A client that opens a request and never finishes it (headers never ended, or a body declared and then sent a
// byte at a time) must not hold its connection, and the body buffer its Content-Length reserves, for ever:
// REQUEST_TIMEOUT_MS bounds the time to receive a whole request. Over real HTTP on raw sockets. P159.
import { type RawConnection, rawConnection } from '@proto/testing';
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

/** A connection that has sent `firstBytes` (and may send more). */
async function hold(firstBytes: string): Promise<RawConnection> {
  const connection = await rawConnection(running.url);
  await connection.write(firstBytes);
  return connection;
}

describe('REQUEST_TIMEOUT_MS (a request that never finishes)', () => {
  it('closes a /verify whose declared body never comes, with a 408', async () => {
    const held = await hold(
      'POST /verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{',
    );
    try {
      const answer = await held.closed(CLOSED_WITHIN_MS);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      held.destroy();
    }
  }, 15_000);

  it('closes a body sent a byte at a time, though each byte comes well within the timeout', async () => {
    const held = await hold(
      'POST /verify/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\nContent-Length: 100000\r\n\r\n',
    );
    const drip = setInterval(() => void held.write(' '), TIMEOUT_MS / 5);
    try {
      const answer = await held.closed(CLOSED_WITHIN_MS);
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(drip);
      held.destroy();
    }
  }, 15_000);

  it('closes a request whose headers never end', async () => {
    const held = await hold('GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: a');
    try {
      expect(await held.closed(CLOSED_WITHIN_MS)).not.toMatch(/^still open/);
    } finally {
      held.destroy();
    }
  }, 15_000);

  it('still answers a whole request, and the same connection goes on', async () => {
    const held = await hold('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
    try {
      await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS * 2));
      await held.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      const answer = await held.closed(CLOSED_WITHIN_MS);
      expect(answer.match(/HTTP\/1\.1 200 /g)).toHaveLength(2);
    } finally {
      held.destroy();
    }
  }, 15_000);
});
