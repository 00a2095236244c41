// A configured witness whose cosignature states a time far from the log's: a day ahead or a day behind (a witness
// with a wrong clock, or one lying about when it saw the checkpoint). The line verifies under its key, but its
// time is what a monitor reads as "seen by then", so the log keeps it only within COSIGNATURE_TIME_SKEW_S of its own
// clock, and not before the checkpoint was signed. The real log, two real witnesses and two real witnesses with
// skewed clocks, quorum 2 of 4 (P213).
import type { TempDir } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendHashes,
  logWitnessesEnv,
  type RunningWitness,
  servedCheckpoint,
  startWitness,
  type TestLogIdentity,
  testLogIdentity,
} from '../../src/test-helpers.ts';
import { buildTestLog, bundleHash, tempDataDir } from '../../src/test-support.ts';

const DAY_MS = 86_400_000;
const identity: TestLogIdentity = testLogIdentity('log.test/cosignature-time');
const dirs: TempDir[] = [];
const honest: RunningWitness[] = [];
const skewed: RunningWitness[] = [];
let log: FastifyInstance;
let appended = 0;

async function dir(label: string): Promise<string> {
  const made = await tempDataDir(label);
  dirs.push(made);
  return made.dir;
}

async function submissions(witness: string, outcome: string): Promise<number> {
  const text = (await log.inject({ method: 'GET', url: '/metrics' })).body;
  const found = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith('proto_log_witness_submissions_total{') &&
        l.includes(`outcome="${outcome}"`) &&
        l.includes(witness),
    );
  return found === undefined ? 0 : Number(found.slice(found.lastIndexOf(' ') + 1));
}

beforeAll(async () => {
  for (const name of ['witness.test/time-honest-a', 'witness.test/time-honest-b'])
    honest.push(await startWitness(await dir(name.slice(-8)), name, [identity]));
  for (const [name, offset] of [
    ['witness.test/time-ahead', DAY_MS],
    ['witness.test/time-behind', -DAY_MS],
  ] as const)
    skewed.push(
      await startWitness(await dir(name.slice(-6)), name, [identity], {
        clock: () => new Date(Date.now() + offset),
      }),
    );
  log = await buildTestLog(
    await dir('cosignature-time-log'),
    {
      ...identity.env,
      LOG_WITNESSES: logWitnessesEnv([...honest, ...skewed].map((w) => ({ url: w.url, vkey: w.vkey }))),
      LOG_WITNESS_QUORUM: '2',
      LOG_WITNESS_TIMEOUT_MS: '2000',
    },
    {},
    { timers: false },
  );
});

afterAll(async () => {
  await log?.close();
  for (const w of [...honest, ...skewed]) await w.close();
  for (const made of dirs) await made.remove().catch(() => undefined);
});

describe('P213: a witness cosignature stating a time far from the log clock', () => {
  it('is counted invalid and never stored or published; the honest cosignatures publish each checkpoint', async () => {
    for (const _round of [1, 2]) {
      await appendHashes(log, [bundleHash(appended++, 'time'), bundleHash(appended++, 'time')]);
      const before = await Promise.all(skewed.map((w) => submissions(w.key.name, 'invalid')));
      await log.transparencyLog.checkpointer.tick();
      const served = await servedCheckpoint(log);
      expect(served.status).toBe(200);
      expect(Number(served.note.split('\n')[1])).toBe(appended);
      for (const w of honest) expect(served.note).toContain(`\u2014 ${w.key.name} `);
      // Before P213: both skewed lines were stored and published with the checkpoint, a day off the log's clock.
      for (const w of skewed) expect(served.note).not.toContain(`\u2014 ${w.key.name} `);
      const after = await Promise.all(skewed.map((w) => submissions(w.key.name, 'invalid')));
      for (const [i, n] of after.entries()) expect(n).toBeGreaterThan(before[i] ?? 0);
    }
  });
});
