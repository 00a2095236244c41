// P395: a witness that answers but refuses (4xx) is asked again at every round, which is what LogWitnessRefusing
// counts, and every refusal wrote the same warn line: one line per witness per round (1 s by default) for as long
// as it refused. Now a repeated fault of one kind (the same refusal status, an invalid answer, a time off the clock, a
// conflict) is written once, then once per LOG_WITNESS_DOWN_LOG_INTERVAL_MS with the count since; a valid cosignature
// afterwards writes one info line. The asks and proto_log_witness_submissions_total are unchanged. The real log over
// HTTP, a real witness and a second configured witness behind a node:http front; quorum 2 of 2.
import type { Cosigner } from '@proto/core';
import { listenOnPort0 } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendHashes, testCosigner, testLogIdentity } from '../../src/test-helpers.ts';
import { bundleHash } from '../../src/test-support.ts';
import { witnessId } from '../../src/witness-config.ts';
import { honestCosignature } from './testing/front-answers.ts';
import { startTwoOfTwoLog, type TwoOfTwoLog } from './testing/two-of-two-log.ts';

const second: Cosigner = testCosigner('witness.test/refusal-noise');

describe('P395: a witness that keeps refusing', () => {
  const identity = testLogIdentity('log.test/refusal-noise');
  const lines: string[] = [];
  let setup: TwoOfTwoLog;
  let log: FastifyInstance;
  let url: string;
  let mode: 'refuse' | 'garbage' | 'up' = 'refuse';

  beforeAll(async () => {
    setup = await startTwoOfTwoLog({
      identity,
      honestName: 'witness.test/rn-honest',
      frontKey: second,
      answer: (request, res) => {
        if (mode === 'refuse') res.writeHead(403, { 'content-type': 'text/plain' }).end('unknown log');
        else if (mode === 'garbage')
          res.writeHead(200, { 'content-type': 'text/plain' }).end('not a cosignature\n');
        else res.writeHead(200, { 'content-type': 'text/plain' }).end(honestCosignature(request, second));
      },
      label: 'rn',
      env: { LOG_LEVEL: 'info' },
      logLines: lines,
    });
    log = setup.log;
    url = (await listenOnPort0(log)).url;
  });

  afterAll(async () => {
    await setup?.close();
  });

  const linesOf = (msg: string) =>
    lines
      .map((l) => JSON.parse(l) as { msg: string; level: number; witness?: string })
      .filter((l) => l.msg === msg && l.witness === witnessId(second));

  it('writes one line per kind of fault, keeps asking and counting, and one line when it cosigns again', async () => {
    const id = witnessId(second);
    let appended = 0;
    for (let round = 0; round < 6; round++) {
      await appendHashes(log, [bundleHash(appended++, 'refusal-noise')]);
      await log.transparencyLog.checkpointer.tick();
    }
    mode = 'garbage';
    for (let round = 0; round < 4; round++) {
      await appendHashes(log, [bundleHash(appended++, 'refusal-noise')]);
      await log.transparencyLog.checkpointer.tick();
    }
    const metrics = await (await fetch(`${url}/metrics`)).text();
    // Asked at every round (the start-up round included): the alert's counter is unchanged.
    expect(metrics).toContain(`proto_log_witness_submissions_total{witness="${id}",outcome="refused"} 7`);
    expect(metrics).toContain(`proto_log_witness_submissions_total{witness="${id}",outcome="invalid"} 4`);
    // Before P395: 7 and 4 warn lines.
    expect(linesOf('witness refused the checkpoint')).toHaveLength(1);
    expect(linesOf('witness answer is not a valid cosignature')).toHaveLength(1);
    expect(linesOf('witness refused the checkpoint')[0]?.level).toBe(40);

    mode = 'up';
    await log.transparencyLog.checkpointer.tick();
    expect((await fetch(`${url}/checkpoint`)).status).toBe(200);
    expect(linesOf('witness cosigns again')).toHaveLength(1);
    // Refusing again after that is news again.
    mode = 'refuse';
    await appendHashes(log, [bundleHash(appended++, 'refusal-noise')]);
    await log.transparencyLog.checkpointer.tick();
    expect(linesOf('witness refused the checkpoint')).toHaveLength(2);
  });
});
