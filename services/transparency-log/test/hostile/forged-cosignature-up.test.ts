// P523: a replica that holds a witness down learns from the store that another replica's ask got a cosignature (P464).
// For a stored size past the replica's own checkpoint it took the row's presence as the answer: a row written into
// the database (by anyone with write access to it, or a bug in another writer) under the witness's name, at a size
// the log never signed, marked the witness up on the replica (proto_log_witness_up 1, "witness is back up", seen:
// "cosignature stored by another replica") and stopped the replica asking the witness until the log grew past that
// size. Now the stored line is verified against the witness's key over the checkpoint of its size before it counts.
// The real log on a real store (SQLite file or PostgreSQL schema), a real witness and a second behind a node:http front
// that drops every connection (down); quorum 2 of 2; the log's clock is the test's.
import { type Cosigner, cosignCheckpoint, formatSignatureLine, selectCryptoBackend } from '@proto/core';
import type { StoreDialect } from '@proto/store';
import { dialectsUnderTest } from '@proto/store/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendHashes, testCosigner, testLogIdentity } from '../../src/test-helpers.ts';
import { bundleHash } from '../../src/test-support.ts';
import { witnessId } from '../../src/witness-config.ts';
import {
  startTwoOfTwoLog,
  type TwoOfTwoLog,
  WITNESS_BACKOFF_ENV,
  witnessMetric,
} from './testing/two-of-two-log.ts';

const backend = selectCryptoBackend();
const second: Cosigner = testCosigner('witness.test/forged-up');

describe.each(dialectsUnderTest())(
  'P523: a forged stored cosignature does not mark a witness up, on %s',
  (dialect: StoreDialect) => {
    const tag = `forged-up-${dialect}`;
    const identity = testLogIdentity(`log.test/${tag}`);
    const lines: string[] = [];
    let setup: TwoOfTwoLog;
    let log: FastifyInstance;
    let now = Date.now();

    beforeAll(async () => {
      setup = await startTwoOfTwoLog({
        dialect,
        identity,
        honestName: `witness.test/${tag}-honest`,
        frontKey: second,
        answer: (_request, res) => {
          res.socket?.destroy();
        },
        label: tag,
        env: { ...WITNESS_BACKOFF_ENV, LOG_LEVEL: 'info' },
        logLines: lines,
        clock: () => new Date(now),
      });
      log = setup.log;
    });
    afterAll(async () => {
      await setup?.close();
    });

    const metric = (name: string) => witnessMetric(log, name, second);
    const round = () => log.transparencyLog.checkpointer.tick();

    it('a row at a size the log never signed, under the witness name and key, leaves it down and asked', async () => {
      await appendHashes(log, [bundleHash(0, tag), bundleHash(1, tag)]);
      now += 1000;
      await round();
      expect(await metric('proto_log_witness_up')).toBe(0);

      // Signed by the witness's key (its name and key ID), over a text that is no checkpoint of this log's: the line
      // parses as the witness's own, at size 50, which the log never signed.
      const signed = cosignCheckpoint(
        `${identity.origin}\n50\n${Buffer.alloc(32, 9).toString('base64')}\n`,
        second,
        Math.floor(now / 1000),
        backend,
      );
      if (!signed.ok) throw new Error(signed.error.message);
      now += 1000;
      expect(
        await log.transparencyLog.store.logCosignatures.save(
          50,
          witnessId(second),
          formatSignatureLine(signed.value),
        ),
      ).toBe(true);

      const before = setup.front.hits();
      for (let step = 0; step < 8; step++) {
        now += 1000;
        await round();
      }
      const backUp = lines
        .map((line) => JSON.parse(line) as { msg: string; witness?: string })
        .filter((line) => line.msg === 'witness is back up' && line.witness === witnessId(second));
      expect(backUp).toEqual([]);
      expect(await metric('proto_log_witness_up')).toBe(0);
      // Still asked on its backoff (due at 2, 4 and 8 s after the first failure), not taken as having cosigned size 50.
      expect(setup.front.hits() - before).toBeGreaterThanOrEqual(2);
      expect((await log.inject({ method: 'GET', url: '/checkpoint' })).statusCode).not.toBe(200);
    });
  },
);
