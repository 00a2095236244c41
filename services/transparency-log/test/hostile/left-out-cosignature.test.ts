// A witness's line that publication leaves out (P242: its time is off; P200: it does not verify over the checkpoint)
// must not count as "this witness cosigned this size": the witness is asked again at the next round, not only once
// the log has grown. The real log on SQLite and PostgreSQL, a real witness, and a configured witness behind a
// node:http front that is down, then answers honestly under the test's key; quorum 2 of 2 (P306).
import {
  type Cosigner,
  cosignCheckpoint,
  formatSignatureLine,
  parseAddCheckpointRequest,
  parseSignedNote,
  selectCryptoBackend,
} from '@proto/core';
import type { StoreDialect } from '@proto/store';
import { dialectsUnderTest } from '@proto/store/testing';
import type { FrontRequest, HostileFront } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RunningWitness,
  servedCheckpoint,
  testCosigner,
  testLogIdentity,
} from '../../src/test-helpers.ts';
import { bundleHash } from '../../src/test-support.ts';
import {
  checkpointAfter,
  startTwoOfTwoLog,
  storeLineAs,
  type TwoOfTwoLog,
} from './testing/two-of-two-log.ts';

const backend = selectCryptoBackend();
const DAY_S = 86_400;

/** The configured witness the test answers for: its key is the test's, so the test can also write lines as it. */
const second: Cosigner = testCosigner('witness.test/left-out');

function lineOver(text: string, statedS: number): string {
  const signed = cosignCheckpoint(text, second, statedS, backend);
  if (!signed.ok) throw new Error(signed.error.message);
  return formatSignatureLine(signed.value);
}

/** An honest witness's answer: its line over the submitted checkpoint's text, stating the time now. */
function honestAnswer(request: FrontRequest): string {
  const parsed = parseAddCheckpointRequest(request.text());
  if (!parsed.ok) throw new Error(parsed.error.message);
  const text = parseSignedNote(parsed.value.checkpoint);
  if (!text.ok) throw new Error(text.error.message);
  return lineOver(text.value.text, Math.floor(Date.now() / 1000));
}

describe.each(dialectsUnderTest())(
  'P306: a cosignature left out at publication, on %s',
  (dialect: StoreDialect) => {
    const identity = testLogIdentity(`log.test/left-out-${dialect}`);
    let setup: TwoOfTwoLog;
    let honest: RunningWitness;
    let front: HostileFront;
    let log: FastifyInstance;
    let up = false;
    let appended = 0;

    beforeAll(async () => {
      setup = await startTwoOfTwoLog({
        dialect,
        identity,
        honestName: 'witness.test/left-out-honest',
        frontKey: second,
        answer: (request, res) => {
          if (!up) {
            res.writeHead(503, { 'content-type': 'text/plain' }).end('down');
            return;
          }
          res.writeHead(200, { 'content-type': 'text/plain' }).end(honestAnswer(request));
        },
        label: 'left-out',
      });
      ({ log, honest, front } = setup);
    });

    afterAll(async () => {
      await setup?.close();
    });

    it('is asked for again at the same size, and its new line is published; a carried line is not asked again', async () => {
      up = false;
      const hashes = [bundleHash(appended++, dialect), bundleHash(appended++, dialect)];
      const checkpoint = await checkpointAfter(log, hashes, appended);
      // Only the honest witness cosigned: nothing is published at this size yet.
      expect((await servedCheckpoint(log)).status).not.toBe(200);
      // A line of the second witness a day ahead of its arrival, stored as an older version would have kept it:
      // publication leaves it out (P242).
      await storeLineAs(log, checkpoint, second, (signedAtS) => signedAtS + DAY_S);

      // The witness is back; the log has not grown.
      up = true;
      const before = front.hits();
      await log.transparencyLog.checkpointer.tick();
      // Before P306: not asked (its stored line counted as cosigned), and nothing published at this size.
      expect(front.hits()).toBe(before + 1);
      const served = await servedCheckpoint(log);
      expect(served.status).toBe(200);
      expect(Number(served.note.split('\n')[1])).toBe(checkpoint.size);
      expect(served.note).toContain('\u2014 witness.test/left-out ');
      expect(served.note).toContain(`\u2014 ${honest.key.name} `);

      // Control: a line the published checkpoint carries counts; the next round asks nobody again.
      const carried = front.hits();
      await log.transparencyLog.checkpointer.tick();
      expect(front.hits()).toBe(carried);
      expect((await servedCheckpoint(log)).note).toBe(served.note);
    });
  },
);
