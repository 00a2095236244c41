// What a CDN or proxy in front of the anchor service may keep, and for how long (P195). Who controls the input:
// any client, through the cache an operator puts in front of the service. A receipt's status moves (pending, then
// confirmed with growing confirmations, or back after a reorg) and a "no anchor request" 404 stops being true with
// the next POST: none had a Cache-Control, so a cache's heuristic lifetime could serve a pending receipt, or a
// 404, long after. The real service and a real log, over HTTP.
import type { Store } from '@proto/store';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import { listenOnPort0 } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashOf, OPERATOR, testApp } from '../../src/testing/app.ts';
import { type LogTestServer, startLogServer } from '../../src/testing/log-server.ts';

const LOG_TOKEN = 'log-append-token-cache-headers-01';
let log: LogTestServer;
let target: StoreTarget;
let store: Store;
let app: FastifyInstance;
let url: string;

beforeAll(async () => {
  log = await startLogServer({ token: LOG_TOKEN });
  target = await createStoreTarget('sqlite', 'anchor-cache-headers');
  store = await target.open();
  app = await testApp({ TL_URL: log.url, TL_TOKEN: LOG_TOKEN }, store);
  url = (await listenOnPort0(app)).url;
});
afterAll(async () => {
  await app?.close();
  await target?.cleanup();
  await log?.close();
});

async function ask(path: string, init: RequestInit = {}) {
  const answer = await fetch(`${url}${path}`, { redirect: 'manual', ...init });
  const text = await answer.text();
  return { path, status: answer.status, cache: answer.headers.get('cache-control'), text };
}

const anchor = (bundleHash: string) =>
  ask('/anchor', {
    method: 'POST',
    headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
    body: JSON.stringify({ bundle_hash: bundleHash, chain: 'transparency-log' }),
  });

describe('Cache-Control on every answer of the anchor service', () => {
  it('probes are never stored: /health, /ready, /metrics', async () => {
    for (const path of ['/health', '/ready', '/metrics']) {
      expect(await ask(path)).toMatchObject({ path, status: 200, cache: 'no-store' });
    }
  });

  it('a receipt is revalidated before each use: pending is never kept as final; a 404 is never stored', async () => {
    const bundleHash = hashOf('cache headers');
    expect(await ask(`/anchor/${bundleHash}`)).toMatchObject({ status: 404, cache: 'no-store' });

    const posted = await anchor(bundleHash);
    expect(posted.status).toBe(202);
    expect(posted.cache).toBe('no-cache');
    const pending = await ask(`/anchor/${bundleHash}`);
    expect(pending).toMatchObject({ status: 200, cache: 'no-cache' });
    expect(JSON.parse(pending.text)).toMatchObject({ anchor_receipt: { status: 'pending' } });

    await app.anchorWorker.run('transparency-log', true);
    const confirmed = await ask(`/anchor/${bundleHash}`);
    expect(confirmed).toMatchObject({ status: 200, cache: 'no-cache' });
    expect(JSON.parse(confirmed.text)).toMatchObject({ anchor_receipt: { status: 'confirmed' } });
  });

  it('errors are never stored: a bad hash, no token, an unknown path', async () => {
    const answers = [
      await ask('/anchor/sha256:abc'),
      await ask('/anchor', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ bundle_hash: hashOf('x') }),
      }),
      await ask('/no-such-route'),
    ];
    expect(answers.map((a) => [a.status, a.cache])).toEqual([
      [400, 'no-store'],
      [401, 'no-store'],
      [404, 'no-store'],
    ]);
  });
});
