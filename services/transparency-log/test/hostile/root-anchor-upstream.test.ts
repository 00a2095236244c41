// The log's root anchoring calls the anchor service (ANCHOR_SERVICE_URL): that upstream, seen as faulty or hostile
// (P156). The real transparency-log service; the "anchor service" is a local node:http server that answers well,
// or with a huge body or a redirect to another host. A huge answer is cut and the round fails (retried next
// round), a redirect is not followed, and neither becomes the root's anchor record. The answers just past the
// log's own cap (MAX_ANCHOR_ANSWER_BYTES) arrive at once, long before ANCHOR_TIMEOUT_MS and far below
// fetchBounded's 16 MiB default, so only that cap can cut them; the same answer 64 KiB shorter is read (P183).
// They fit the sockets' buffers, so the server finishes writing them: what the log did is read from its state.
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
import { buildTransparencyLog } from '../../src/app.ts';
import { MAX_ANCHOR_ANSWER_BYTES } from '../../src/root-anchor.ts';
import { buildTestLog, bundleHash, OPERATOR_AUTH, tempDataDir, testConfig } from '../../src/test-support.ts';

type Mode = 'honest' | 'huge' | 'over' | 'under' | 'redirect';

const HUGE_PADDING = 32 * 1024 * 1024;
/** Spaces before the honest answer: exactly the cap, so the answer is the cap plus its JSON. */
const OVER_PADDING = MAX_ANCHOR_ANSWER_BYTES;
/** One 64 KiB block of padding fewer: the same answer, inside the cap. */
const UNDER_PADDING = MAX_ANCHOR_ANSWER_BYTES - 64 * 1024;
/** The operator's line for a receipt poll that failed (P189). */
const POLL_FAULT = 'root anchor receipt poll failed; asked again after its backoff';
/** Far longer than any answer here takes, so that a round that ends fast was not ended by it. */
const ANCHOR_TIMEOUT_MS = 30_000;
const PENDING = JSON.stringify({ accepted: true, status: 'pending' });
const CONFIRMED = JSON.stringify({
  anchor_receipt: { chain: 'bitcoin', tx_id: 'ab'.repeat(32), block_height: 840_000, status: 'confirmed' },
});
let mode: Mode = 'honest';
let upstream: HostileFront;
/** Where a redirect leads: a host that must never see the root or the token. */
let elsewhere: HostileFront;
let cutShort = 0;
/** The Authorization header of the anchor service's last request (P580: a URL's userinfo is sent as Basic). */
let lastAuthorization: string | undefined;

/** POST /anchor queues the root (202 pending); GET /anchor/<hash> is the follow-up poll (here: confirmed). */
const honestAnswer = (request: FrontRequest) =>
  request.method === 'POST' ? { status: 202, body: PENDING } : { status: 200, body: CONFIRMED };

async function anchorService(request: FrontRequest, res: ServerResponse): Promise<void> {
  lastAuthorization = request.headers.authorization;
  const { status, body } = honestAnswer(request);
  switch (mode) {
    case 'honest':
      return answerJson(res, status, body);
    case 'huge':
    case 'over':
    case 'under': {
      const padding = { huge: HUGE_PADDING, over: OVER_PADDING, under: UNDER_PADDING }[mode];
      res.writeHead(status, { 'content-type': 'application/json' });
      return await writeHugeAnswer(res, padding, body, () => {
        cutShort += 1;
      });
    }
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
  lines = [];
});

/** The log's warn and error lines of the current test (P189). */
let lines: string[] = [];

function logged(msg: string): Array<Record<string, unknown>> {
  return lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line['msg'] === msg);
}

const ANCHORING_ENV = {
  ANCHOR_TOKEN: 'anchor-token-0123456789',
  ROOT_ANCHOR_INTERVAL_MS: '100',
  ANCHOR_TIMEOUT_MS: String(ANCHOR_TIMEOUT_MS),
  LOG_LEVEL: 'warn',
};

/** A log anchoring through `anchorUrl`, its warn lines kept in `lines`. */
function anchoringLog(dir: string, anchorUrl: string): Promise<FastifyInstance> {
  return buildTestLog(
    dir,
    { ...ANCHORING_ENV, ANCHOR_SERVICE_URL: anchorUrl },
    {},
    { timers: false, logLines: lines },
  );
}

/**
 * The same log with `anchorUrl` set past the config loader, which refuses a URL with credentials since P196: what
 * P189's messages must still withstand if the URL reaches the anchorer some other way.
 */
function anchoringLogPastConfig(dir: string, anchorUrl: string): Promise<FastifyInstance> {
  return buildTransparencyLog({
    config: {
      ...testConfig(dir, { ...ANCHORING_ENV, ANCHOR_SERVICE_URL: upstream.url }),
      ANCHOR_SERVICE_URL: anchorUrl,
    },
    logger: { stream: { write: (line: string) => lines.push(line) } },
    timers: false,
  });
}

/** A log with three entries and a signed checkpoint, anchoring through the hostile server; `run` gets it. */
async function withLog(run: (app: FastifyInstance, dir: string) => Promise<void>): Promise<void> {
  const data = await tempDataDir('root-anchor-upstream');
  let app: FastifyInstance | undefined;
  try {
    app = await anchoringLog(data.dir, upstream.url);
    for (let i = 0; i < 3; i++) {
      await app.inject({
        method: 'POST',
        url: '/add',
        payload: { bundle_hash: bundleHash(i, 'upstream') },
        headers: OPERATOR_AUTH,
      });
    }
    await app.transparencyLog.checkpointer.tick();
    await run(app, data.dir);
  } finally {
    await app?.close();
    await data.remove();
  }
}

async function rootAnchor(app: FastifyInstance): Promise<Record<string, unknown> | undefined> {
  return (await app.inject({ url: '/root/signed' })).json().root_anchor;
}

/** One anchoring round and how long it took. */
async function timedTick(app: FastifyInstance): Promise<number> {
  const started = performance.now();
  await app.transparencyLog.anchorer!.tick();
  return performance.now() - started;
}

/** Rounds until the root anchor reads `status` (a poll that learnt nothing waits its backoff first). */
async function tickUntil(app: FastifyInstance, status: string): Promise<void> {
  await expect
    .poll(
      async () => {
        await app.transparencyLog.anchorer!.tick();
        return (await rootAnchor(app))?.['status'];
      },
      { timeout: 10_000, interval: 200 },
    )
    .toBe(status);
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

  it('an answer to POST /anchor just past the cap is cut by the cap, fast: no anchor recorded; one block shorter is read', async () => {
    await withLog(async (app) => {
      mode = 'over';
      const ms = await timedTick(app);
      expect(await rootAnchor(app)).toBeUndefined();
      // The round failed on the cap: the record says so, and it ended long before the timeout could.
      const failed = await app.transparencyLog.store.log.latestRootAnchor();
      expect(failed).toMatchObject({ status: 'failed' });
      expect(failed?.error).toContain(`larger than ${MAX_ANCHOR_ANSWER_BYTES} bytes`);
      expect(ms).toBeLessThan(ANCHOR_TIMEOUT_MS / 6);
      mode = 'under';
      await app.transparencyLog.anchorer!.tick();
      expect(await rootAnchor(app)).toMatchObject({ tree_size: 3, status: 'pending' });
    });
  });

  it('a receipt poll answered just past the cap is cut by the cap, fast: the anchor stays pending; one block shorter confirms it', async () => {
    await withLog(async (app) => {
      await app.transparencyLog.anchorer!.tick();
      expect(await rootAnchor(app)).toMatchObject({ status: 'pending' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      mode = 'over';
      const ms = await timedTick(app);
      // Read in full, this answer says confirmed (as the 'under' one below does): only the cap keeps it pending.
      expect(await rootAnchor(app)).toMatchObject({ status: 'pending' });
      expect(ms).toBeLessThan(ANCHOR_TIMEOUT_MS / 6);
      mode = 'under';
      await tickUntil(app, 'confirmed');
      expect(await rootAnchor(app)).toMatchObject({
        tree_size: 3,
        status: 'confirmed',
        block_height: 840_000,
      });
    });
  });

  it('P189: a receipt poll cut by the cap is told to the operator, once per anchor until a poll succeeds', async () => {
    await withLog(async (app) => {
      const anchorer = app.transparencyLog.anchorer!;
      await anchorer.tick();
      expect(await rootAnchor(app)).toMatchObject({ status: 'pending' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      mode = 'over';
      await anchorer.tick();
      expect(await rootAnchor(app)).toMatchObject({ status: 'pending' });
      const faults = logged(POLL_FAULT);
      expect(faults).toHaveLength(1);
      expect(faults[0]).toMatchObject({ level: 40, tree_size: 3, url: new URL(upstream.url).href });
      expect(faults[0]?.['error']).toContain(`larger than ${MAX_ANCHOR_ANSWER_BYTES} bytes`);
      // The next fault of the same anchor (after its backoff) adds no line.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const before = upstream.hits();
      await anchorer.tick();
      expect(upstream.hits()).toBeGreaterThan(before);
      expect(logged(POLL_FAULT)).toHaveLength(1);
      mode = 'under';
      await tickUntil(app, 'confirmed');
    });
  });

  it('P189: a fault line never shows the userinfo of ANCHOR_SERVICE_URL', async () => {
    const secret = 's3cret-pass-0123456789';
    const withUserinfo = new URL(upstream.url);
    withUserinfo.username = 'operator';
    withUserinfo.password = secret;
    await withLog(async (app, dir) => {
      await app.transparencyLog.anchorer!.tick();
      expect(await rootAnchor(app)).toMatchObject({ status: 'pending' });
      await app.close();
      // The same log restarted with credentials in the URL: fetchBounded sends them as Basic (P580), and the
      // anchor service answers past the log's cap, so the poll fails: its line names the URL without them.
      const restarted = await anchoringLogPastConfig(dir, withUserinfo.href);
      try {
        mode = 'over';
        await new Promise((resolve) => setTimeout(resolve, 300));
        await restarted.transparencyLog.anchorer!.tick();
        expect(lastAuthorization).toBe(`Basic ${Buffer.from(`operator:${secret}`).toString('base64')}`);
        const faults = logged(POLL_FAULT);
        expect(faults).toHaveLength(1);
        expect(faults[0]).toMatchObject({ tree_size: 3, url: new URL(upstream.url).href });
        expect(faults[0]?.['error']).toContain(`larger than ${MAX_ANCHOR_ANSWER_BYTES} bytes`);
        expect(faults[0]?.['error']).not.toContain(secret);
        // The anchoring of a new root fails the same way; its line and its stored error keep no secret either.
        await restarted.inject({
          method: 'POST',
          url: '/add',
          payload: { bundle_hash: bundleHash(7, 'upstream') },
          headers: OPERATOR_AUTH,
        });
        await restarted.transparencyLog.checkpointer.tick();
        await restarted.transparencyLog.anchorer!.tick();
        expect(logged('root anchoring failed; retried next round')).toHaveLength(1);
        const failed = await restarted.transparencyLog.store.log.latestRootAnchor();
        expect(failed).toMatchObject({ size: 4, status: 'failed' });
        expect(failed?.error).toContain(`larger than ${MAX_ANCHOR_ANSWER_BYTES} bytes`);
        expect(failed?.error).not.toContain(secret);
        expect(lines.join('\n')).not.toContain(secret);
      } finally {
        await restarted.close();
      }
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
