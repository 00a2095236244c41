// P213 keeps a witness's cosignature only when its stated time lies within COSIGNATURE_TIME_SKEW_S of the log's
// clock as it arrives. A line already in the store (written before P213, by an older version, or by any path that
// skipped the answer's checks) must meet the same rule when it is published: its time no earlier than the skew
// before the checkpoint was signed, no later than the skew after the line was stored. The line is written straight
// into the log's store (SQLite and PostgreSQL) under the name and key of a configured witness that is never reached
// (503); with quorum 2 of 2 the checkpoint is published only if that line is taken (P242).
import type { Cosigner } from '@proto/core';
import type { StoreDialect } from '@proto/store';
import { dialectsUnderTest } from '@proto/store/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RunningWitness,
  servedCheckpoint,
  testCosigner,
  testLogIdentity,
} from '../../src/test-helpers.ts';
import { bundleHash } from '../../src/test-support.ts';
import { COSIGNATURE_TIME_SKEW_S } from '../../src/witnessing.ts';
import {
  checkpointAfter,
  startTwoOfTwoLog,
  storeLineAs,
  type TwoOfTwoLog,
} from './testing/two-of-two-log.ts';

const DAY_S = 86_400;

/** The configured witness that never answers: its key is the test's, so the test can write lines as it. */
const silent: Cosigner = testCosigner('witness.test/stored-time');

describe.each(dialectsUnderTest())('P242: a stored cosignature published on %s', (dialect: StoreDialect) => {
  const identity = testLogIdentity(`log.test/stored-time-${dialect}`);
  let setup: TwoOfTwoLog;
  let honest: RunningWitness;
  let log: FastifyInstance;
  let appended = 0;

  beforeAll(async () => {
    setup = await startTwoOfTwoLog({
      dialect,
      identity,
      honestName: 'witness.test/stored-time-honest',
      frontKey: silent,
      answer: (_request, res) => {
        res.writeHead(503, { 'content-type': 'text/plain' }).end('down');
      },
      label: 'stored-time',
    });
    ({ log, honest } = setup);
  });

  afterAll(async () => {
    await setup?.close();
  });

  /**
   * Signs a new checkpoint (the honest witness cosigns it, the silent one is not reached), writes the silent
   * witness's line stating `statedS` for it straight into the store, then runs a round: the publication.
   */
  async function storedLinePublished(
    statedS: (signedAtS: number) => number,
  ): Promise<{ size: number; served: string }> {
    const hashes = [bundleHash(appended++, dialect), bundleHash(appended++, dialect)];
    const checkpoint = await checkpointAfter(log, hashes, appended);
    await storeLineAs(log, checkpoint, silent, statedS);
    await log.transparencyLog.checkpointer.tick();
    const served = await servedCheckpoint(log);
    return { size: checkpoint.size, served: served.status === 200 ? served.note : '' };
  }

  it('is left out when its time is a day after it was stored, or a day before the checkpoint was signed', async () => {
    const ahead = await storedLinePublished((signedAtS) => signedAtS + DAY_S);
    // Before P242: the checkpoint was published with this line, stating a time a day in the log's future.
    expect(ahead.served).not.toContain('witness.test/stored-time ');
    expect(ahead.served === '' || Number(ahead.served.split('\n')[1]) < ahead.size).toBe(true);

    const behind = await storedLinePublished((signedAtS) => signedAtS - DAY_S);
    expect(behind.served).not.toContain('witness.test/stored-time ');
    expect(behind.served === '' || Number(behind.served.split('\n')[1]) < behind.size).toBe(true);

    const justOutside = await storedLinePublished((signedAtS) => signedAtS - COSIGNATURE_TIME_SKEW_S - 2);
    expect(justOutside.served).not.toContain('witness.test/stored-time ');
  });

  it('is published when its time lies within the skew (control)', async () => {
    const near = await storedLinePublished((signedAtS) => signedAtS + 1);
    expect(Number(near.served.split('\n')[1])).toBe(near.size);
    expect(near.served).toContain('\u2014 witness.test/stored-time ');
    expect(near.served).toContain(`\u2014 ${honest.key.name} `);
    const early = await storedLinePublished((signedAtS) => signedAtS - COSIGNATURE_TIME_SKEW_S + 2);
    expect(Number(early.served.split('\n')[1])).toBe(early.size);
    expect(early.served).toContain('\u2014 witness.test/stored-time ');
  });
});
