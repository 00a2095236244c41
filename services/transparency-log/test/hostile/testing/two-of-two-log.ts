// The set-up of the suites with one real witness and one under the suite's control (P242, P306, P390, P394, P395,
// P460): the real log (timers off, the test ticks its checkpointer), one real witness, and a second configured
// witness behind a node:http front under a key of the suite's own, so the suite answers for it and writes lines as
// it; quorum 2 of 2. On a store of the dialect under test, or on SQLite in the log's DATA_DIR when none is named.
import type { ServerResponse } from 'node:http';
import {
  type Cosigner,
  cosignCheckpoint,
  formatCosignerKey,
  formatSignatureLine,
  parseSignedNote,
  selectCryptoBackend,
} from '@proto/core';
import type { StoreDialect } from '@proto/store';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import { type FrontRequest, type HostileFront, startHostileFront, type TempDir } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import {
  appendHashes,
  logWitnessesEnv,
  type RunningWitness,
  startWitness,
  type TestLogIdentity,
} from '../../../src/test-helpers.ts';
import { buildTestLog, tempDataDir } from '../../../src/test-support.ts';
import { witnessId } from '../../../src/witness-config.ts';

/** The witness backoff on (test logs default to none, P391), from a 1 s checkpoint round (P464, P523). */
export const WITNESS_BACKOFF_ENV = {
  LOG_WITNESS_RETRY_MAX_MS: '600000',
  CHECKPOINT_INTERVAL_MS: '1000',
} as const;

/** `app`'s per-witness metric `name` (e.g. proto_log_witness_up) for `witness`, read from GET /metrics; NaN if absent. */
export async function witnessMetric(app: FastifyInstance, name: string, witness: Cosigner): Promise<number> {
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  const line = text.split('\n').find((l) => l.startsWith(`${name}{witness="${witnessId(witness)}"}`));
  return Number(line?.split(' ').pop());
}

export interface TwoOfTwoLog {
  readonly log: FastifyInstance;
  readonly honest: RunningWitness;
  /** The second witness's front: every request it received (`hits()`). */
  readonly front: HostileFront;
  /**
   * Another instance of the same log (same store, DATA_DIR, witnesses and environment, plus `env`): a restart once
   * the first is closed, a replica while it runs. Closed with the set-up.
   */
  another(extra?: {
    readonly env?: Readonly<Record<string, string>>;
    readonly logLines?: string[];
  }): Promise<FastifyInstance>;
  close(): Promise<void>;
}

export async function startTwoOfTwoLog(options: {
  /** The store's dialect; absent: SQLite in the log's DATA_DIR. */
  readonly dialect?: StoreDialect;
  readonly identity: TestLogIdentity;
  readonly honestName: string;
  /** The second witness's key, as the log is configured with it. */
  readonly frontKey: Cosigner;
  readonly answer: (request: FrontRequest, res: ServerResponse) => void | Promise<void>;
  /** Its store's and directories' label. */
  readonly label: string;
  /** More of the log's environment (LOG_LEVEL, ANCHOR_SERVICE_URL, …). */
  readonly env?: Readonly<Record<string, string>>;
  /** Where the log's lines (JSON, at env's LOG_LEVEL) are kept for the test to read. */
  readonly logLines?: string[];
  /** The clock of every instance (default the real one): the witness backoff and anchor polls read it. */
  readonly clock?: () => Date;
}): Promise<TwoOfTwoLog> {
  const target: StoreTarget | undefined =
    options.dialect === undefined
      ? undefined
      : await createStoreTarget(options.dialect, `tlog-${options.label}`);
  const dirs: TempDir[] = await Promise.all([
    tempDataDir(`${options.label}-w`),
    tempDataDir(`${options.label}-log`),
  ]);
  const [witnessDir, logDir] = dirs.map((made) => made.dir) as [string, string];
  const honest = await startWitness(witnessDir, options.honestName, [options.identity]);
  const front = await startHostileFront(options.answer);
  const env = {
    ...options.identity.env,
    LOG_WITNESSES: logWitnessesEnv([
      { url: honest.url, vkey: honest.vkey },
      { url: front.url, vkey: formatCosignerKey(options.frontKey) },
    ]),
    LOG_WITNESS_QUORUM: '2',
    LOG_WITNESS_TIMEOUT_MS: '2000',
    ...options.env,
  };
  const store = target?.fresh(options.label) ?? {};
  const start = (extra: { readonly env?: Readonly<Record<string, string>>; readonly logLines?: string[] }) =>
    buildTestLog(logDir, { ...env, ...extra.env }, store, {
      timers: false,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      ...(extra.logLines === undefined ? {} : { logLines: extra.logLines }),
    });
  const log = await start(options.logLines === undefined ? {} : { logLines: options.logLines });
  const others: FastifyInstance[] = [];
  return {
    log,
    honest,
    front,
    another: async (extra = {}) => {
      const other = await start(extra);
      others.push(other);
      return other;
    },
    close: async () => {
      // A test may have closed one already (a restart): closing again is harmless.
      for (const app of [log, ...others]) await app.close().catch(() => undefined);
      await honest.close();
      await front.close();
      await target?.cleanup();
      for (const made of dirs) await made.remove().catch(() => undefined);
    },
  };
}

/** A checkpoint the log signed, as its checkpointer holds it. */
export type SignedCheckpoint = NonNullable<FastifyInstance['transparencyLog']['checkpointer']['latest']>;

/** Appends `hashes` to `log` and runs a round: the checkpoint it signed, of `size` entries (throws if none). */
export async function checkpointAfter(
  log: FastifyInstance,
  hashes: readonly string[],
  size: number,
): Promise<SignedCheckpoint> {
  await appendHashes(log, hashes);
  await log.transparencyLog.checkpointer.tick();
  const checkpoint = log.transparencyLog.checkpointer.latest;
  if (checkpoint === undefined || checkpoint.size !== size) throw new Error('no checkpoint signed');
  return checkpoint;
}

/**
 * `witness`'s line over `checkpoint`, stating the time `statedS` gives for the checkpoint's signing time (seconds),
 * written straight into the log's store as an older version (or a path that skipped the answer's checks) kept it.
 */
export async function storeLineAs(
  log: FastifyInstance,
  checkpoint: SignedCheckpoint,
  witness: Cosigner,
  statedS: (signedAtS: number) => number,
): Promise<void> {
  const text = parseSignedNote(checkpoint.note);
  if (!text.ok) throw new Error(text.error.message);
  const signedAtS = Math.floor(Date.parse(checkpoint.signedAt) / 1000);
  const signed = cosignCheckpoint(text.value.text, witness, statedS(signedAtS), selectCryptoBackend());
  if (!signed.ok) throw new Error(signed.error.message);
  const line = formatSignatureLine(signed.value);
  expect(
    await log.transparencyLog.store.logCosignatures.save(checkpoint.size, witnessId(witness), line),
  ).toBe(true);
}
