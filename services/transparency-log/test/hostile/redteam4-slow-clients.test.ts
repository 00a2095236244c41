// redteam4 (P587): anyone on the network holding connections open at the pace of their choosing (slowloris): headers
// one byte at a time, a declared body one byte at a time, a connection that never sends a byte, one kept alive and
// left idle after its answer, one whose second request's headers drip. Fifty of them at once against the real log:
// /health still answers at once, each drip gets 408 and every connection is closed within the configured
// REQUEST_TIMEOUT_MS and KEEP_ALIVE_TIMEOUT_MS (the idle one was held for Fastify's fixed 72 s before).
import { listenOnPort0, type SlowClientPace, slowClients, type TempDir, waitFor } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestLog, OPERATOR_AUTH, tempDataDir } from '../../src/test-support.ts';

const TIMEOUT_MS = 1_000;
/** The timeouts, Node's check of them (once a second here) and a loaded machine's slack. */
const CLOSED_WITHIN_MS = 12_000;

let temp: TempDir;
let running: Awaited<ReturnType<typeof listenOnPort0>>;
beforeAll(async () => {
  temp = await tempDataDir('redteam4-slow');
  const env = { REQUEST_TIMEOUT_MS: String(TIMEOUT_MS), KEEP_ALIVE_TIMEOUT_MS: String(TIMEOUT_MS) };
  running = await listenOnPort0(await buildTestLog(temp.dir, env, {}, { timers: false }));
});
afterAll(async () => {
  await running?.close();
  await temp?.remove();
});

const HEALTH = 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
const PACES: Record<string, { count: number; pace: SlowClientPace; answer: RegExp }> = {
  'headers a byte at a time': {
    count: 12,
    pace: { first: 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n', drip: 'X-Slow: a', everyMs: 100 },
    answer: /^HTTP\/1\.1 408 [\s\S]*"REQUEST_TIMEOUT"/,
  },
  'a declared body a byte at a time': {
    count: 12,
    pace: {
      first: `POST /add HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${OPERATOR_AUTH.authorization}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`,
      drip: ' ',
      everyMs: 100,
    },
    answer: /^HTTP\/1\.1 408 [\s\S]*"REQUEST_TIMEOUT"/,
  },
  'never a byte': { count: 12, pace: { first: '', drip: '', everyMs: 100 }, answer: /^(HTTP\/1\.1 408 |$)/ },
  'kept alive, then idle': {
    count: 7,
    pace: { first: HEALTH, drip: '', everyMs: 100 },
    answer: /^HTTP\/1\.1 200 [\s\S]*"status":"ok"[\s\S]*$/,
  },
  "a second request's headers a byte at a time": {
    count: 7,
    pace: { first: `${HEALTH}GET /health HTTP/1.1\r\n`, drip: 'X-Slow: a', everyMs: 100 },
    answer: /^HTTP\/1\.1 200 [\s\S]*HTTP\/1\.1 408 /,
  },
};

describe('P587: fifty slow clients against the log', () => {
  it('starve no /health, and each is closed within the configured timeouts', async () => {
    const opened = await Promise.all(
      Object.entries(PACES).map(async ([name, { count, pace }]) => ({
        name,
        clients: await slowClients(running.url, count, pace),
      })),
    );
    try {
      for (let i = 0; i < 10; i++) {
        const started = Date.now();
        const health = await fetch(`${running.url}/health`);
        await health.arrayBuffer();
        expect([health.status, Date.now() - started < 2_000]).toEqual([200, true]);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const total = opened.reduce((sum, { clients }) => sum + clients.received().length, 0);
      expect(total).toBe(50);
      await waitFor(
        () => opened.every(({ clients }) => clients.closedCount() === clients.received().length),
        CLOSED_WITHIN_MS,
        'the service to close every slow connection',
      ).catch(() => undefined);
      const still = opened.map(({ name, clients }) => [
        name,
        clients.received().length - clients.closedCount(),
      ]);
      expect(still.filter(([, open]) => open !== 0)).toEqual([]);
      for (const { name, clients } of opened) {
        for (const text of clients.received())
          expect([name, text]).toEqual([name, expect.stringMatching(PACES[name]?.answer ?? /^$/)]);
      }
    } finally {
      for (const { clients } of opened) clients.stop();
    }
  }, 40_000);
});
