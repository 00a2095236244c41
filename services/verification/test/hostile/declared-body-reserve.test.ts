// A Content-Length is the client's word: forty connections that each declare an 8 MiB batch and send one byte
// must not make the service reserve 320 MiB. The body buffer grows with what arrives (P165). Over real HTTP on
// raw sockets; the service's own `nodejs_external_memory_bytes` gauge tells what it reserved.
import { type RawConnection, rawConnection } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricValue, type RunningApp, startApp } from '../../src/test-support.ts';

const CONNECTIONS = 40;
const DECLARED = 8 * 1024 * 1024;

let running: RunningApp;
const connections: RawConnection[] = [];

beforeAll(async () => {
  running = await startApp({ VERIFY_WORKERS: '1' });
});
afterAll(async () => {
  for (const connection of connections) connection.destroy();
  await running?.close();
});

async function openStalledBatch(): Promise<void> {
  const connection = await rawConnection(running.url);
  connections.push(connection);
  await connection.write(
    `POST /verify/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\nContent-Length: ${DECLARED}\r\n\r\n{`,
  );
}

describe('a declared body that does not come', () => {
  it('reserves memory for what arrived, not for what the Content-Length promised', async () => {
    const before = await metricValue(running.url, 'nodejs_external_memory_bytes');
    for (let i = 0; i < CONNECTIONS; i++) await openStalledBatch();
    // The first byte of each has reached the body reader once the service answers a request sent after them.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = await metricValue(running.url, 'nodejs_external_memory_bytes');
    // 40 × 8 MiB = 320 MiB if the declared size is reserved; a few hundred KiB each at most otherwise.
    expect(after - before).toBeLessThan(CONNECTIONS * 1024 * 1024);
  }, 30_000);
});
