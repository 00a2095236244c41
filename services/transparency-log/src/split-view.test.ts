// The split view (issue 18 item 2): two instances of one log, same signing keys and origin, on different entries (a
// forked log showing each victim its own tree), submit to the same real witness over HTTP. The witness cosigns one
// history only; the fork never reaches quorum, is never published, and a verifier with the witness key refuses it,
// although the log's own signatures on it verify.
import { checkWitnessQuorum, formatSignatureLine, openLogCheckpoint, parseSignedNote } from '@proto/core';
import type { StoreDialect } from '@proto/store';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import type { TempDir } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  appendHashes,
  logWitnessesEnv,
  type RunningWitness,
  servedCheckpoint,
  startWitness,
  testLogIdentity,
} from './test-helpers.ts';
import { buildTestLog, bundleHash, tempDataDir } from './test-support.ts';
import { witnessId } from './witness-config.ts';

describe.each(dialectsUnderTest())('a split view of one log, on %s', (dialect: StoreDialect) => {
  let target: StoreTarget;
  let witness: RunningWitness;
  const dirs: TempDir[] = [];
  const apps: FastifyInstance[] = [];
  const identity = testLogIdentity('log.test/split');

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'tlog-split-view');
    const witnessDir = await tempDataDir('split-witness');
    dirs.push(witnessDir);
    witness = await startWitness(witnessDir.dir, 'witness.test/split', [identity]);
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await witness.close();
    await target.cleanup();
    for (const dir of dirs) await dir.remove();
  });

  async function instance(label: string): Promise<FastifyInstance> {
    const dir = await tempDataDir(label);
    dirs.push(dir);
    const app = await buildTestLog(
      dir.dir,
      { ...identity.env, LOG_WITNESSES: logWitnessesEnv([witness]), LOG_WITNESS_TIMEOUT_MS: '2000' },
      target.fresh(label),
      { timers: false },
    );
    apps.push(app);
    return app;
  }

  it('the witness cosigns one history; the fork never reaches quorum and a verifier refuses it', async () => {
    const policy = { witnesses: [witness.key], quorum: 1 };
    const honest = await instance('honest');
    await appendHashes(
      honest,
      Array.from({ length: 4 }, (_, i) => bundleHash(i, 'honest')),
    );
    await honest.transparencyLog.checkpointer.tick();
    const published = await servedCheckpoint(honest);
    expect(published.status).toBe(200);
    expect(checkWitnessQuorum(published.note, policy).ok).toBe(true);

    // The fork: same keys and origin, other entries: first the same size with another root, then a larger tree.
    const fork = await instance('fork');
    for (const [from, n] of [
      [0, 4],
      [4, 2],
    ] as const) {
      await appendHashes(
        fork,
        Array.from({ length: n }, (_, i) => bundleHash(from + i, 'fork')),
      );
      await fork.transparencyLog.checkpointer.tick();
      const forked = fork.transparencyLog.checkpointer.latest;
      expect(forked?.size).toBe(from + n);
      const forkedNote = forked?.note ?? '';

      // Signed by the log's own keys: on its own, a verifier would take it.
      expect(openLogCheckpoint(forkedNote, fork.transparencyLog.keys.verifiers).ok).toBe(true);
      // Never published, never cosigned.
      const served = await fork.inject({ method: 'GET', url: '/checkpoint' });
      expect(served.statusCode).toBe(503);
      const signed = await fork.inject({ method: 'GET', url: '/root/signed' });
      expect(signed.statusCode).toBe(503);
      expect(await fork.transparencyLog.store.logCosignatures.lastCosignedSize(witnessId(witness.key))).toBe(
        undefined,
      );
      // A verifier requiring the witness refuses the fork as the log signed it…
      const bare = checkWitnessQuorum(forkedNote, policy);
      expect(!bare.ok && bare.error.code).toBe('SIGNATURE_MISSING');
      // …and with the honest checkpoint's cosignature grafted on: it covers another tree.
      const honestLines = parseSignedNote(published.note);
      if (!honestLines.ok) throw new Error(honestLines.error.message);
      const grafted =
        forkedNote +
        honestLines.value.signatures
          .filter((s) => s.keyName === witness.key.name)
          .map((s) => formatSignatureLine(s))
          .join('');
      expect(checkWitnessQuorum(grafted, policy).ok).toBe(false);
    }

    // The witness's refusals are counted on the fork, and the honest log keeps its cosigned checkpoint.
    expect((await fork.inject({ method: 'GET', url: '/metrics' })).body).toMatch(/outcome="refused"/);
    expect((await servedCheckpoint(honest)).note).toBe(published.note);
  });
});
