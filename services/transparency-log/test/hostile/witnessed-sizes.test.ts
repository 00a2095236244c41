// P390: on a witnessed log, `GET /checkpoint?tree_size=N` and `GET /tlog-proof/:i?tree_size=N` served the stored
// checkpoint of size N with the log's own lines only: a size no witness quorum cosigned (the newest one, while a
// witness is down or refuses) came out as a 200, and a size the quorum did cosign came out without the witnesses'
// lines, so `checkWitnessQuorum` failed on it. Now a size is served only with its verified quorum lines, else 404.
// The real log on SQLite and PostgreSQL over HTTP, a real witness, and a second configured witness behind a
// node:http front that refuses, is down, or answers honestly; quorum 2 of 2.
import { type Cosigner, checkWitnessQuorum, parseTlogProof, verifyTlogProof } from '@proto/core';
import type { StoreDialect } from '@proto/store';
import { dialectsUnderTest } from '@proto/store/testing';
import { listenOnPort0 } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendHashes, type RunningWitness, testCosigner, testLogIdentity } from '../../src/test-helpers.ts';
import { bundleHash } from '../../src/test-support.ts';
import { honestCosignature } from './testing/front-answers.ts';
import { startTwoOfTwoLog, type TwoOfTwoLog } from './testing/two-of-two-log.ts';

const second: Cosigner = testCosigner('witness.test/witnessed-sizes');

const sizeOf = (note: string): number => Number(note.split('\n')[1]);

describe.each(dialectsUnderTest())('P390: tree_size on a witnessed log, on %s', (dialect: StoreDialect) => {
  const identity = testLogIdentity(`log.test/witnessed-sizes-${dialect}`);
  let setup: TwoOfTwoLog;
  let honest: RunningWitness;
  let log: FastifyInstance;
  let url: string;
  let mode: 'refuse' | 'down' | 'up' = 'refuse';
  let appended = 0;

  const get = async (path: string) => {
    const res = await fetch(`${url}${path}`);
    return { status: res.status, body: await res.text(), retryAfter: res.headers.get('retry-after') };
  };
  const policy = () => ({ witnesses: [honest.key, second], quorum: 2 });
  const grow = async (n: number) => {
    await appendHashes(
      log,
      Array.from({ length: n }, () => bundleHash(appended++, `witnessed-sizes-${dialect}`)),
    );
    await log.transparencyLog.checkpointer.tick();
  };

  beforeAll(async () => {
    setup = await startTwoOfTwoLog({
      dialect,
      identity,
      honestName: 'witness.test/witnessed-sizes-honest',
      frontKey: second,
      answer: (request, res) => {
        if (mode === 'down') {
          res.socket?.destroy();
          return;
        }
        if (mode === 'refuse') {
          res.writeHead(403, { 'content-type': 'text/plain' }).end('unknown log');
          return;
        }
        res.writeHead(200, { 'content-type': 'text/plain' }).end(honestCosignature(request, second));
      },
      label: `witnessed-sizes-${dialect}`,
    });
    ({ log, honest } = setup);
    url = (await listenOnPort0(log)).url;
  });

  afterAll(async () => {
    await setup?.close();
  });

  it('serves a size only with its quorum, and never one the quorum did not cosign', async () => {
    // Start: size 0 signed, cosigned by the real witness only (the second refuses).
    expect(log.transparencyLog.checkpointer.latest?.size).toBe(0);
    expect((await get('/checkpoint')).status).toBe(503);
    // Before P390: 200 with the log's bare note of size 0.
    const zeroEarly = await get('/checkpoint?tree_size=0');
    expect(zeroEarly.status).toBe(404);
    expect(zeroEarly.body).toContain('NOT_FOUND');

    // The second witness answers: size 0, then 3, are published with both lines.
    mode = 'up';
    await log.transparencyLog.checkpointer.tick();
    await grow(3);
    expect(sizeOf((await get('/checkpoint')).body)).toBe(3);

    // It refuses again, then is down: sizes 5 and 7 are signed by the log, never cosigned by the quorum.
    mode = 'refuse';
    await grow(2);
    mode = 'down';
    await grow(2);
    expect(log.transparencyLog.checkpointer.latest?.size).toBe(7);
    expect(sizeOf((await get('/checkpoint')).body)).toBe(3);
    for (const size of [5, 7]) {
      // Before P390: 200 with the log's bare checkpoint of that size.
      const checkpoint = await get(`/checkpoint?tree_size=${size}`);
      expect(checkpoint.status, `checkpoint ${size}`).toBe(404);
      expect(checkpoint.retryAfter).not.toBeNull();
      const proof = await get(`/tlog-proof/${size - 1}?tree_size=${size}`);
      expect(proof.status, `tlog-proof ${size}`).toBe(404);
    }
    // The newest unsigned size's leaf without tree_size: not yet covered (as before).
    expect((await get('/tlog-proof/6')).status).toBe(404);

    // Cosigned sizes, older and current: served with both witnesses' lines (before P390: the bare note, which
    // fails the quorum check), and a tlog-proof against them verifies inclusion and the quorum offline.
    for (const size of [0, 3]) {
      const checkpoint = await get(`/checkpoint?tree_size=${size}`);
      expect(checkpoint.status).toBe(200);
      expect(sizeOf(checkpoint.body)).toBe(size);
      expect(checkWitnessQuorum(checkpoint.body, policy()).ok, `quorum on ${size}`).toBe(true);
    }
    const proof = await get('/tlog-proof/1?tree_size=3');
    expect(proof.status).toBe(200);
    expect(
      verifyTlogProof(
        proof.body,
        bundleHash(1, `witnessed-sizes-${dialect}`),
        log.transparencyLog.keys.verifiers,
      ).ok,
    ).toBe(true);
    const parsed = parseTlogProof(proof.body);
    expect(parsed.ok && checkWitnessQuorum(parsed.value.checkpoint, policy()).ok).toBe(true);
    expect((await get('/checkpoint')).body).toBe((await get('/checkpoint?tree_size=3')).body);

    // A size between cosigned ones that was never signed, and sizes past the log: 404.
    for (const size of [1, 4, 6, 8, Number.MAX_SAFE_INTEGER]) {
      expect((await get(`/checkpoint?tree_size=${size}`)).status, `checkpoint ${size}`).toBe(404);
      expect((await get(`/tlog-proof/0?tree_size=${size}`)).status, `tlog-proof ${size}`).toBe(404);
    }
    // Not a plain decimal (or above 2^53 - 1): 400, never read as another size.
    for (const raw of ['01', '1e3', '+1', '3.0', '0x3', '-1', '', '9007199254740992', '1e400']) {
      const q = encodeURIComponent(raw);
      const checkpoint = await get(`/checkpoint?tree_size=${q}`);
      expect(checkpoint.status, `checkpoint "${raw}"`).toBe(400);
      expect(checkpoint.body).toContain('PROTO-E001');
      expect((await get(`/tlog-proof/0?tree_size=${q}`)).status, `tlog-proof "${raw}"`).toBe(400);
    }
  });
});
