// The log's root anchoring calls the anchor service (ANCHOR_SERVICE_URL): that upstream, seen as faulty or hostile
// (P156). The real transparency-log service; the "anchor service" is a local node:http server that answers well,
// or with a huge body or a redirect to another host. A huge answer is cut and the round fails (retried next
// round), a redirect is not followed, and neither becomes the root's anchor record.
import type { ServerResponse } from 'node:http';
import {
  answerJson,
  type FrontRequest,
  type HostileFront,
  redirectTo,
  startHostileFront,
  writeHugeAnswer,
} from '@proto/testing';
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
let upstream: HostileFront;
/** Where a redirect leads: a host that must never see the root or the token. */
let elsewhere: HostileFront;
let cutShort = 0;

/** POST /anchor queues the root (202 pending); GET /anchor/<hash> is the follow-up poll (here: confirmed). */
const honestAnswer = (request: FrontRequest) =>
  request.method === 'POST' ? { status: 202, body: PENDING } : { status: 200, body: CONFIRMED };

async function anchorService(request: FrontRequest, res: ServerResponse): Promise<void> {
  const { status, body } = honestAnswer(request);
  switch (mode) {
    case 'honest':
      return answerJson(res, status, body);
    case 'huge':
      res.writeHead(status, { 'content-type': 'application/json' });
      return await writeHugeAnswer(res, HUGE_PADDING, body, () => {
        cutShort += 1;
      });
    case 'redirect':
      return redirectTo(res, `${elsewhere.url}${request.url}`);
  }
}

beforeAll(async () => {
  upstream = await startHostileFront(anchorService);
  elsewhere = await startHostileFront((request, res) => {
    const { status, body } = honestAnswer(request);
    answerJson(res, status, body);
  });
});

afterAll(async () => {
  await Promise.all([upstream?.close(), elsewhere?.close()]);
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
        ANCHOR_SERVICE_URL: upstream.url,
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
      const before = elsewhere.hits();
      mode = 'redirect';
      await anchorer.tick();
      expect(elsewhere.hits() - before).toBe(0);
      expect(await rootAnchor(app)).toBeUndefined();
    });
  });
});
