// A Content-Length is the client's word: forty connections that each declare an 8 MiB batch and send one byte
// must not make the service reserve 320 MiB. The body buffer grows with what arrives (P165). Over real HTTP on
// raw sockets; the service's own `nodejs_external_memory_bytes` gauge tells what it reserved.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricValue, type RunningApp, startApp } from '../../src/test-support.ts';

const CONNECTIONS = 40;
const DECLARED = 8 * 1024 * 1024;

let running: RunningApp;
const sockets: Socket[] = [];

beforeAll(async () => {
  running = await startApp({ VERIFY_WORKERS: '1' });
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await running?.close();
});

function openStalledBatch(): Promise<void> {
  const { port } = new URL(running.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(
        `POST /verify/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\nContent-Length: ${DECLARED}\r\n\r\n{`,
        () => resolve(),
      );
    });
    socket.on('error', reject);
    sockets.push(socket);
  });
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
