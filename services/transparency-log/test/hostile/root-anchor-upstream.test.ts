// The log's root anchoring calls the anchor service (ANCHOR_SERVICE_URL): that upstream, seen as faulty or hostile
// (P156). The real transparency-log service; the "anchor service" is a local node:http server that answers well,
// or with a huge body or a redirect to another host. A huge answer is cut and the round fails (retried next
// round), a redirect is not followed, and neither becomes the root's anchor record.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { writeHugeAnswer } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildTestLog, bundleHash, OPERATOR_AUTH, tempDataDir } from '../../src/test-support.ts';

type Mode = 'honest' | 'huge' | 'redirect';

const HUGE_PADDING = 32 * 1024 * 1024;
const PENDING = JSON.stringify({ accepted: true, status: 'pending' });
const CONFIRMED = JSON.stringify({
  anchor_receipt: { chain: 'bitcoin', tx_id: 'ab'.repeat(32), block_height: 840_000, status: 'confirmed' },
});
let mode: Mode = 'honest';
let upstream: Server;
let upstreamUrl: string;
let elsewhere: Server;
let elsewhereUrl: string;
let elsewhereHits = 0;
let cutShort = 0;

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/** Writes `bytes` of spaces then `tail`; counts an answer the client cut short. */
const writeHuge = (res: ServerResponse, bytes: number, tail: string) =>
  writeHugeAnswer(res, bytes, tail, () => {
    cutShort += 1;
  });

async function anchorService(req: IncomingMessage, res: ServerResponse): Promise<void> {
  for await (const _ of req) {
    // drain the request
  }
  const json = { 'content-type': 'application/json' };
  // POST /anchor queues the root; GET /anchor/<hash> is the follow-up poll (here: confirmed).
  const answer = req.method === 'POST' ? PENDING : CONFIRMED;
  const status = req.method === 'POST' ? 202 : 200;
  switch (mode) {
    case 'honest':
      res.writeHead(status, json).end(answer);
      return;
    case 'huge':
      res.writeHead(status, json);
      await writeHuge(res, HUGE_PADDING, answer);
      return;
    case 'redirect':
      res.writeHead(307, { location: `${elsewhereUrl}${req.url ?? '/'}` }).end();
      return;
  }
}

beforeAll(async () => {
  upstream = createServer((req, res) => {
    anchorService(req, res).catch(() => res.destroy());
  });
  upstreamUrl = await listen(upstream);
  elsewhere = createServer((req, res) => {
    elsewhereHits += 1;
    req.resume();
    req.on('end', () =>
      res
        .writeHead(req.method === 'POST' ? 202 : 200, { 'content-type': 'application/json' })
        .end(req.method === 'POST' ? PENDING : CONFIRMED),
    );
  });
  elsewhereUrl = await listen(elsewhere);
});

afterAll(async () => {
  for (const server of [upstream, elsewhere]) {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
});

beforeEach(() => {
  mode = 'honest';
});

/** A log with three entries and a signed checkpoint, anchoring through the hostile server; `run` gets it. */
async function withLog(run: (app: FastifyInstance) => Promise<void>): Promise<void> {
  const data = await tempDataDir('root-anchor-upstream');
  let app: FastifyInstance | undefined;
  try {
    app = await buildTestLog(
      data.dir,
      {
        ANCHOR_SERVICE_URL: upstreamUrl,
        ANCHOR_TOKEN: 'anchor-token-0123456789',
        ROOT_ANCHOR_INTERVAL_MS: '100',
      },
      {},
      { timers: false },
    );
    for (let i = 0; i < 3; i++) {
      await app.inject({
        method: 'POST',
        url: '/add',
        payload: { bundle_hash: bundleHash(i, 'upstream') },
        headers: OPERATOR_AUTH,
      });
    }
    await app.transparencyLog.checkpointer.tick();
    await run(app);
  } finally {
    await app?.close();
    await data.remove();
  }
}

async function rootAnchor(app: FastifyInstance): Promise<Record<string, unknown> | undefined> {
  return (await app.inject({ url: '/root/signed' })).json().root_anchor;
}

describe('P156: a hostile anchor service behind the log root anchoring', () => {
  it('an honest anchor service: the root anchor is pending, then confirmed by the poll (the fixture is real)', async () => {
    await withLog(async (app) => {
      const anchorer = app.transparencyLog.anchorer!;
      await anchorer.tick();
      expect(await rootAnchor(app)).toMatchObject({ tree_size: 3, status: 'pending' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await anchorer.tick();
      expect(await rootAnchor(app)).toMatchObject({ tree_size: 3, status: 'confirmed' });
    });
  });

  it('a 32 MiB answer to POST /anchor is cut: no anchor recorded, retried next round', async () => {
    await withLog(async (app) => {
      const anchorer = app.transparencyLog.anchorer!;
      const before = cutShort;
      mode = 'huge';
      await anchorer.tick();
      expect(await rootAnchor(app)).toBeUndefined();
      await expect.poll(() => cutShort - before, { timeout: 5000 }).toBeGreaterThan(0);
      mode = 'honest';
      await anchorer.tick();
      expect(await rootAnchor(app)).toMatchObject({ tree_size: 3, status: 'pending' });
    });
  });

  it('a 32 MiB answer to the receipt poll is cut: the anchor stays pending', async () => {
    await withLog(async (app) => {
      const anchorer = app.transparencyLog.anchorer!;
      await anchorer.tick();
      expect(await rootAnchor(app)).toMatchObject({ status: 'pending' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const before = cutShort;
      mode = 'huge';
      await anchorer.tick();
      expect(await rootAnchor(app)).toMatchObject({ status: 'pending' });
      await expect.poll(() => cutShort - before, { timeout: 5000 }).toBeGreaterThan(0);
    });
  });

  it('a redirect of POST /anchor to another host is not followed: that host never sees the root or the token', async () => {
    await withLog(async (app) => {
      const anchorer = app.transparencyLog.anchorer!;
      const before = elsewhereHits;
      mode = 'redirect';
      await anchorer.tick();
      expect(elsewhereHits - before).toBe(0);
      expect(await rootAnchor(app)).toBeUndefined();
    });
  });
});
