// P464: the witness backoff (P391) is per replica, in memory. Each replica backing off alone costs a down witness one
// schedule of asks per replica (bounded, kept: reachability is a property of each replica's path to the witness, and
// a shared backoff would let one replica's broken egress hold the others back). But a replica that held a witness down
// and, once due, found the witness's cosignature already stored by another replica returned before counting it as an
// answer: it kept `proto_log_witness_up` at 0 (and LogWitnessDown firing) while the witness cosigned, for as long as the
// other replica asked first. Now such a stored line, newer than the replica's first failed ask, brings the witness
// back up there too. Two replicas of the real log on one store (SQLite file or PostgreSQL schema), a real witness and
// a second behind a node:http front that drops the connection (down) then cosigns; quorum 2 of 2; the logs' clock is
// the test's, stepped a second per round.
import { type Cosigner, formatCosignerKey } from '@proto/core';
import type { StoreDialect } from '@proto/store';
import { dialectsUnderTest } from '@proto/store/testing';
import { type HostileFront, startHostileFront } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendHashes, logWitnessesEnv, testCosigner, testLogIdentity } from '../../src/test-helpers.ts';
import { bundleHash } from '../../src/test-support.ts';
import { witnessId } from '../../src/witness-config.ts';
import { honestCosignature } from './testing/front-answers.ts';
import {
  startTwoOfTwoLog,
  type TwoOfTwoLog,
  WITNESS_BACKOFF_ENV,
  witnessMetric,
} from './testing/two-of-two-log.ts';

const second: Cosigner = testCosigner('witness.test/backoff-replicas');

describe.each(dialectsUnderTest())(
  'P464: witness backoff with two replicas, on %s',
  (dialect: StoreDialect) => {
    const tag = `backoff-replicas-${dialect}`;
    const identity = testLogIdentity(`log.test/${tag}`);
    const linesB: string[] = [];
    let setup: TwoOfTwoLog;
    let a: FastifyInstance;
    let b: FastifyInstance;
    let down = false;
    let now = Date.now();

    beforeAll(async () => {
      setup = await startTwoOfTwoLog({
        dialect,
        identity,
        honestName: `witness.test/${tag}-honest`,
        frontKey: second,
        answer: (request, res) => {
          if (down) res.socket?.destroy();
          else res.writeHead(200, { 'content-type': 'text/plain' }).end(honestCosignature(request, second));
        },
        label: tag,
        env: WITNESS_BACKOFF_ENV,
        clock: () => new Date(now),
      });
      a = setup.log;
      b = await setup.another({ env: { LOG_LEVEL: 'info' }, logLines: linesB });
    });

    let dead: HostileFront;

    afterAll(async () => {
      await setup?.close();
      await dead?.close();
    });

    const metric = (app: FastifyInstance, name: string) => witnessMetric(app, name, second);
    const round = async (...replicas: FastifyInstance[]) => {
      for (const replica of replicas) await replica.transparencyLog.checkpointer.tick();
    };

    it('each replica backs off alone, and learns from the store that the witness cosigns again', async () => {
      down = true;
      await appendHashes(a, [bundleHash(0, tag), bundleHash(1, tag)]);
      const before = setup.front.hits();
      for (let step = 0; step < 64; step++) {
        now += 1000;
        await round(a, b);
      }
      // One replica alone asks 7 times in these 64 s (at 1, 2, 4, …, 64 s after its first failure): two replicas, each on
      // its own schedule, ask at most twice that, never every round (64 × 2).
      const asks = setup.front.hits() - before;
      expect(asks).toBeGreaterThan(7);
      expect(asks).toBeLessThanOrEqual(2 * 8);
      expect(await metric(a, 'proto_log_witness_up')).toBe(0);
      expect(await metric(b, 'proto_log_witness_up')).toBe(0);

      // The witness is back. A's wait ends first and A gets the cosignature; B is due in the same second.
      down = false;
      now += 64_000;
      await round(a);
      expect(await metric(a, 'proto_log_witness_up')).toBe(1);
      const hitsBeforeB = setup.front.hits();
      await round(b);
      // B publishes the checkpoint the quorum cosigned (the store shares it) without asking the witness itself.
      expect(setup.front.hits()).toBe(hitsBeforeB);
      const checkpoint = await b.inject({ method: 'GET', url: '/checkpoint' });
      expect(checkpoint.statusCode).toBe(200);
      expect(checkpoint.body.split('\n')[1]).toBe('2');
      // Before P464: 0 and 7 at B for as long as A asks first (here: for good, the log is idle).
      expect(await metric(b, 'proto_log_witness_up')).toBe(1);
      expect(await metric(b, 'proto_log_witness_consecutive_failures')).toBe(0);
      const backUp = linesB
        .map((line) => JSON.parse(line) as { msg: string; witness?: string; seen?: string })
        .filter((line) => line.msg === 'witness is back up' && line.witness === witnessId(second));
      expect(backUp).toMatchObject([{ seen: 'cosignature stored by another replica' }]);
    });

    it('keeps the backoff of a replica whose own path to the witness is broken, without a line per checkpoint', async () => {
      // Replica C reaches the second witness at a URL that drops every connection (its egress, its proxy); A reaches it.
      dead = await startHostileFront((_request, res) => res.socket?.destroy());
      const linesC: string[] = [];
      const c = await setup.another({
        env: {
          LOG_LEVEL: 'info',
          LOG_WITNESSES: logWitnessesEnv([
            { url: setup.honest.url, vkey: setup.honest.vkey },
            { url: dead.url, vkey: formatCosignerKey(second) },
          ]),
        },
        logLines: linesC,
      });
      // The log grows every round, and which replica signs and asks first alternates.
      for (let step = 0; step < 40; step++) {
        now += 1000;
        await appendHashes(a, [bundleHash(100 + step, tag)]);
        if (step % 2 === 0) await round(c, a);
        else await round(a, c);
      }
      const ofC = linesC
        .map((line) => JSON.parse(line) as { msg: string; witness?: string })
        .filter((line) => line.witness === witnessId(second));
      // One down line for the whole run: C's failures are one backoff (1, 2, 4, … s), not a new "down" per checkpoint.
      expect(ofC.filter((line) => line.msg === 'witness is down; asked again with backoff')).toHaveLength(1);
      expect(dead.hits()).toBeLessThanOrEqual(7);
      // A's cosignatures keep the log published at C too.
      const published = await c.inject({ method: 'GET', url: '/checkpoint' });
      expect(published.statusCode).toBe(200);
      expect(Number(published.body.split('\n')[1])).toBeGreaterThan(2);
    });
  },
);
