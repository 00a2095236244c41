// Two add-checkpoint requests that both read the same head before either swaps, forced on every dialect:
// the store's compare-and-swap lets exactly one be cosigned (P49). Over HTTP the SQLite driver is
// synchronous, so requests seldom interleave there by chance; this makes the interleaving certain.
import { selectCryptoBackend } from '@proto/core';
import type { StoreDialect, WitnessRepository } from '@proto/store';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { tempDir } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestLog } from './test-support.ts';
import { Witness } from './witness.ts';
import { loadWitnessKey } from './witness-key.ts';
import { parseWitnessedLogs } from './witnessed-logs.ts';

const quiet = { info: () => undefined, warn: () => undefined };

/** The real repository, with its first `reads` head() reads held until all of them are in flight. */
function meetingAfterReads(repository: WitnessRepository, reads: number): WitnessRepository {
  let arrived = 0;
  let release: () => void = () => undefined;
  const met = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    advance: (origin, expected, next) => repository.advance(origin, expected, next),
    head: async (origin) => {
      const head = await repository.head(origin);
      if (arrived < reads) {
        arrived += 1;
        if (arrived === reads) release();
        await met;
      }
      return head;
    },
  };
}

describe.each(dialectsUnderTest())('racing add-checkpoint on %s', (dialect: StoreDialect) => {
  let target: StoreTarget;

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'witness-race');
  });
  afterAll(async () => {
    await target.cleanup();
  });

  it('cosigns one of two checkpoints decided against the same head; the other gets 409', async () => {
    const dir = await tempDir('witness-race-key');
    try {
      const backend = selectCryptoBackend();
      const key = loadWitnessKey({
        name: 'w.test/race',
        keyFile: undefined,
        dataDir: dir.dir,
        backend,
        log: quiet,
      });
      const log = new TestLog('log.test/race').grow(4);
      const logs = parseWitnessedLogs(log.vkey, 'WITNESS_LOGS');
      const store = await target.open(target.fresh('race'));
      const witness = (reads: number) =>
        new Witness({
          repository: meetingAfterReads(store.witness, reads),
          logs,
          key,
          backend,
          clock: () => new Date(),
        });
      expect((await witness(1).addCheckpoint(log.addCheckpointBody(0))).status).toBe(200);

      for (const round of [0, 1]) {
        // Two different trees extending what was cosigned, each consistent on its own.
        const [a, b] = ['a', 'b'].map((tag) => {
          const fork = new TestLog(log.origin);
          Object.assign(fork, { signer: log.signer, vkey: log.vkey });
          fork.leaves.push(...log.leaves);
          return fork.grow(2 + round, `${tag}${round}`);
        }) as [TestLog, TestLog];
        const racing = witness(2);
        const outcomes = await Promise.all([
          racing.addCheckpoint(a.addCheckpointBody(log.leaves.length)),
          racing.addCheckpoint(b.addCheckpointBody(log.leaves.length)),
        ]);
        const statuses = outcomes.map((o) => o.status).sort();
        expect(statuses).toEqual([200, 409]);
        const winner = outcomes[0]?.status === 200 ? a : b;
        const loser = outcomes.find((o) => o.status === 409);
        expect(loser?.status === 409 && loser.knownSize).toBe(winner.leaves.length);
        const stored = await store.witness.head(log.origin);
        expect(stored?.size).toBe(winner.leaves.length);
        log.leaves.splice(0, log.leaves.length, ...winner.leaves);
      }
    } finally {
      await dir.remove();
    }
  });
});
