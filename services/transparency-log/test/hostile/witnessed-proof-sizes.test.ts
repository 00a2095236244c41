// P460: on a witnessed log, `/proof/:i`, `/consistency` and `/lookup/:hash` answered in the committed head's tree,
// whatever the witnesses had cosigned: with the quorum short (a witness refusing), a client got inclusion and
// consistency proofs leading to a root no witness saw, by default and by naming the size. Now an explicit size past
// the published checkpoint is 404 retryable (as `/checkpoint?tree_size=` since P390), and the default tree is the
// published one. The real log over HTTP on SQLite and PostgreSQL, a real witness and a second configured witness
// behind a node:http front that cosigns, then refuses; quorum 2 of 2.
import type { Cosigner } from '@proto/core';
import type { StoreDialect } from '@proto/store';
import { dialectsUnderTest } from '@proto/store/testing';
import { listenOnPort0 } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendHashes, testCosigner, testLogIdentity } from '../../src/test-helpers.ts';
import { bundleHash } from '../../src/test-support.ts';
import { honestCosignature } from './testing/front-answers.ts';
import { startTwoOfTwoLog, type TwoOfTwoLog } from './testing/two-of-two-log.ts';

const second: Cosigner = testCosigner('witness.test/witnessed-proof-sizes');

describe.each(dialectsUnderTest())('P460: proofs on a witnessed log, on %s', (dialect: StoreDialect) => {
  const identity = testLogIdentity(`log.test/witnessed-proof-sizes-${dialect}`);
  const tag = `witnessed-proof-sizes-${dialect}`;
  let setup: TwoOfTwoLog;
  let log: FastifyInstance;
  let url: string;
  let refuse = false;

  const get = async (path: string) => {
    const res = await fetch(`${url}${path}`);
    return {
      status: res.status,
      body: (await res.json()) as Record<string, unknown> & { error?: { code: string; retryable: boolean } },
      retryAfter: res.headers.get('retry-after'),
      cache: res.headers.get('cache-control'),
    };
  };
  const grow = async (from: number, to: number) => {
    await appendHashes(
      log,
      Array.from({ length: to - from }, (_, i) => bundleHash(from + i, tag)),
    );
    await log.transparencyLog.checkpointer.tick();
  };

  beforeAll(async () => {
    setup = await startTwoOfTwoLog({
      dialect,
      identity,
      honestName: 'witness.test/witnessed-proof-sizes-honest',
      frontKey: second,
      answer: (request, res) => {
        if (refuse) res.writeHead(403, { 'content-type': 'text/plain' }).end('unknown log');
        else res.writeHead(200, { 'content-type': 'text/plain' }).end(honestCosignature(request, second));
      },
      label: tag,
    });
    log = setup.log;
    url = (await listenOnPort0(log)).url;
  });

  afterAll(async () => {
    await setup?.close();
  });

  it('answers proofs only in trees the witness quorum cosigned', async () => {
    await grow(0, 3);
    const published = await (await fetch(`${url}/checkpoint`)).text();
    expect(published.split('\n')[1]).toBe('3');
    const publishedRoot = Buffer.from(published.split('\n')[2] ?? '', 'base64').toString('hex');

    // The second witness refuses from now on: size 5 is signed by the log, never cosigned by the quorum.
    refuse = true;
    await grow(3, 5);
    expect(log.transparencyLog.checkpointer.latest?.size).toBe(5);
    expect((await (await fetch(`${url}/root`)).json()) as { tree_size: number }).toMatchObject({
      tree_size: 5,
    });

    // Explicit sizes past the published checkpoint. Before P460: 200 with a proof in the tree of size 5.
    for (const path of ['/proof/0?tree_size=5', '/proof/4?tree_size=5', '/consistency?first=3&second=5']) {
      const answer = await get(path);
      expect(answer.status, path).toBe(404);
      expect(answer.body.error?.code, path).toBe('NOT_FOUND');
      expect(answer.body.error?.retryable, path).toBe(true);
      expect(answer.retryAfter, path).not.toBeNull();
      expect(answer.cache, path).toBe('no-cache');
    }
    // Entries past the published checkpoint, by default. Before P460: 200, tree_size 5.
    for (const path of ['/proof/4', `/lookup/${encodeURIComponent(bundleHash(4, tag))}`]) {
      const answer = await get(path);
      expect(answer.status, path).toBe(404);
      expect(answer.body.error?.retryable, path).toBe(true);
      expect(answer.retryAfter, path).not.toBeNull();
    }

    // Defaults are the published tree. Before P460: tree_size / second 5 and the unpublished root.
    const proof = await get('/proof/1');
    expect(proof.status).toBe(200);
    expect(proof.body).toMatchObject({ tree_size: 3, root: publishedRoot });
    const lookup = await get(`/lookup/${encodeURIComponent(bundleHash(1, tag))}`);
    expect(lookup.status).toBe(200);
    expect(lookup.body).toMatchObject({ log_index: 1, tree_size: 3, root: publishedRoot });
    const consistency = await get('/consistency?first=1');
    expect(consistency.status).toBe(200);
    expect(consistency.body).toMatchObject({ first: 1, second: 3, second_root: publishedRoot });

    // Sizes at or under the published one are answered as before (the cosigned tree fixes every prefix).
    for (const path of ['/proof/0?tree_size=3', '/proof/0?tree_size=2', '/consistency?first=1&second=3']) {
      const answer = await get(path);
      expect(answer.status, path).toBe(200);
      expect(answer.cache, path).toContain('immutable');
    }
    // Past the log and malformed: as before (404 not retryable; 400 PROTO-E001).
    expect((await get('/proof/0?tree_size=9')).body.error?.retryable).toBe(false);
    expect((await get('/consistency?first=0&second=9')).status).toBe(404);
    expect((await get('/proof/0?tree_size=1e3')).body.error?.code).toBe('PROTO-E001');

    // Cosigned at last: size 5 is published and proofs in it are answered.
    refuse = false;
    await log.transparencyLog.checkpointer.tick();
    const now = await get('/proof/4');
    expect(now.status).toBe(200);
    expect(now.body['tree_size']).toBe(5);
    expect((await get('/consistency?first=3&second=5')).status).toBe(200);
  });
});
