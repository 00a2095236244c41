// The set-up the cosignature hostile suites share (P200, P214): the real log (timers off, the test ticks its
// checkpointer), two real witnesses, and a third witness behind a node:http front that answers as the suite says,
// under a key of the suite's own, quorum 2 of 3. One set-up for both suites (P253).
import type { ServerResponse } from 'node:http';
import { type Cosigner, formatCosignerKey } from '@proto/core';
import { type FrontRequest, type HostileFront, startHostileFront, type TempDir } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import {
  logWitnessesEnv,
  type RunningWitness,
  startWitness,
  type TestLogIdentity,
  testCosigner,
} from '../../../src/test-helpers.ts';
import { buildTestLog, tempDataDir } from '../../../src/test-support.ts';

export { testCosigner };

export interface LogWithFrontWitness {
  readonly log: FastifyInstance;
  /** The log's DATA_DIR (a second store handle may write into it). */
  readonly logDir: string;
  readonly honest: readonly RunningWitness[];
  readonly front: HostileFront;
  close(): Promise<void>;
}

export async function startLogWithFrontWitness(options: {
  readonly identity: TestLogIdentity;
  /** Names of the two honest witnesses. */
  readonly honestNames: readonly [string, string];
  /** The front witness's key, as the log is configured with it. */
  readonly frontKey: Cosigner;
  readonly answer: (request: FrontRequest, res: ServerResponse) => void | Promise<void>;
  /** Its directories' label. */
  readonly label: string;
}): Promise<LogWithFrontWitness> {
  const dirs: TempDir[] = [];
  const dir = async (label: string) => {
    const made = await tempDataDir(label);
    dirs.push(made);
    return made.dir;
  };
  const honest: RunningWitness[] = [];
  for (const name of options.honestNames)
    honest.push(await startWitness(await dir(name.slice(-8)), name, [options.identity]));
  const front = await startHostileFront(options.answer);
  const logDir = await dir(`${options.label}-log`);
  const log = await buildTestLog(
    logDir,
    {
      ...options.identity.env,
      LOG_WITNESSES: logWitnessesEnv([
        ...honest.map((w) => ({ url: w.url, vkey: w.vkey })),
        { url: front.url, vkey: formatCosignerKey(options.frontKey) },
      ]),
      LOG_WITNESS_QUORUM: '2',
      LOG_WITNESS_TIMEOUT_MS: '2000',
    },
    {},
    { timers: false },
  );
  return {
    log,
    logDir,
    honest,
    front,
    close: async () => {
      await log.close();
      for (const w of honest) await w.close();
      await front.close();
      for (const made of dirs) await made.remove().catch(() => undefined);
    },
  };
}
