// Root anchoring against a tiny real HTTP anchor service: request shape and token, retry after a failure,
// the receipt in /root/signed, one request per signed size. DECISIONS D18 (anchored on a timer), D19, D22.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomeFromResponse } from './root-anchor.ts';
import { buildTestLog, bundleHash, OPERATOR_AUTH, tempDataDir } from './test-support.ts';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
}

describe('root anchoring through the anchor service', () => {
  let server: Server;
  let url: string;
  const seen: Seen[] = [];
  const polls: string[] = [];
  const answers: Array<{ status: number; body: unknown }> = [];

  beforeAll(async () => {
    server = createServer(async (request, response) => {
      let text = '';
      for await (const chunk of request) text += String(chunk);
      // P392 polls a confirmed root anchor again once it is due, which on a slow machine can fall inside this test:
      // such a poll (a GET, no body) learns nothing here and takes no queued answer.
      if (request.method !== 'POST') {
        polls.push(request.url ?? '');
        response
          .writeHead(503, { 'content-type': 'application/json' })
          .end('{"error":{"code":"PROTO-E702"}}');
        return;
      }
      seen.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: JSON.parse(text),
      });
      const answer = answers.shift() ?? { status: 500, body: { error: 'no answer queued' } };
      response
        .writeHead(answer.status, { 'content-type': 'application/json' })
        .end(JSON.stringify(answer.body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('posts the signed root with the token, retries a failure, and shows the receipt in /root/signed', async () => {
    const data = await tempDataDir('anchor');
    let app: FastifyInstance | undefined;
    try {
      app = await buildTestLog(
        data.dir,
        { ANCHOR_SERVICE_URL: url, ANCHOR_TOKEN: 'anchor-token-0123456789', ANCHOR_CHAIN: 'bitcoin' },
        {},
        { timers: false },
      );
      const { checkpointer, anchorer } = app.transparencyLog;
      if (anchorer === undefined) throw new Error('anchoring must be on when ANCHOR_SERVICE_URL is set');
      // Nothing to anchor for an empty log.
      await anchorer.tick();
      expect(seen).toEqual([]);

      for (let i = 0; i < 5; i++)
        await app.inject({
          method: 'POST',
          url: '/add',
          payload: { bundle_hash: bundleHash(i, 'anchor') },
          headers: OPERATOR_AUTH,
        });
      const checkpoint = await checkpointer.tick();
      const rootHex = Buffer.from(checkpoint?.root as Uint8Array).toString('hex');

      answers.push({ status: 503, body: { error: { code: 'PROTO-E702' } } });
      await anchorer.tick();
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({
        method: 'POST',
        url: '/anchor',
        body: { bundle_hash: `sha256:${rootHex}`, chain: 'bitcoin' },
      });
      expect(seen[0]?.headers.authorization).toBe('Bearer anchor-token-0123456789');
      expect((await app.inject({ url: '/root/signed' })).json().root_anchor).toBeUndefined();

      answers.push({
        status: 200,
        body: {
          receipt: { chain: 'bitcoin', tx_id: 'ab'.repeat(32), block_height: 840_000, status: 'confirmed' },
        },
      });
      await anchorer.tick();
      expect(seen).toHaveLength(2);
      const anchor = (await app.inject({ url: '/root/signed' })).json().root_anchor;
      expect(anchor).toMatchObject({
        tree_size: 5,
        root: rootHex,
        bundle_hash: `sha256:${rootHex}`,
        chain: 'bitcoin',
        tx_id: 'ab'.repeat(32),
        block_height: 840_000,
        status: 'confirmed',
      });

      // Unchanged root: no new request. A grown and signed tree: its new root is sent.
      await anchorer.tick();
      expect(seen).toHaveLength(2);
      await app.inject({
        method: 'POST',
        url: '/add',
        payload: { bundle_hash: bundleHash(9, 'anchor') },
        headers: OPERATOR_AUTH,
      });
      const grown = await checkpointer.tick();
      answers.push({ status: 202, body: { accepted: true, status: 'pending' } });
      await anchorer.tick();
      expect(seen).toHaveLength(3);
      expect(seen[2]?.body).toMatchObject({
        bundle_hash: `sha256:${Buffer.from(grown?.root as Uint8Array).toString('hex')}`,
      });
      expect((await app.inject({ url: '/root/signed' })).json().root_anchor).toMatchObject({
        tree_size: 6,
        status: 'pending',
        tx_id: null,
      });
    } finally {
      await app?.close();
      await data.remove();
    }
  });

  it('reads the usual receipt shapes', () => {
    expect(
      outcomeFromResponse(200, { tx_hash: '0xabc', block_number: 12, chain: 'base' }, undefined),
    ).toMatchObject({
      status: 'confirmed',
      txId: '0xabc',
      blockHeight: 12,
      chain: 'base',
    });
    expect(outcomeFromResponse(202, { accepted: true }, 'bitcoin')).toMatchObject({
      status: 'pending',
      chain: 'bitcoin',
      txId: null,
    });
    expect(outcomeFromResponse(200, { status: 'failed' }, undefined).status).toBe('failed');
    expect(outcomeFromResponse(200, 'not json', undefined)).toMatchObject({
      status: 'pending',
      receiptJson: '"not json"',
    });
  });
});
