// The log with witnesses, over HTTP against the real witness service (issue 18 item 2): only checkpoints with the
// quorum of valid cosignatures are published; a witness that is down delays publication, then catches up; a restart
// keeps the cosignatures; a 409 is answered with a proof from the witness's size; a bad cosignature is never kept.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  checkWitnessQuorum,
  cosignCheckpoint,
  formatCosignerKey,
  formatSignatureLine,
  openLogCheckpoint,
  parseSignedNote,
  parseTlogProof,
  selectCryptoBackend,
  verifyTlogProof,
} from '@proto/core';
import type { StoreDialect, StoreOptions } from '@proto/store';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import type { TempDir } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  appendHashes,
  logWitnessesEnv,
  type RunningWitness,
  servedCheckpoint,
  startWitness,
  type TestLogIdentity,
  testCosigner,
  testLogIdentity,
} from './test-helpers.ts';
import { buildTestLog, bundleHash, tempDataDir } from './test-support.ts';
import { witnessId } from './witness-config.ts';

const hashes = (from: number, n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => bundleHash(from + i, tag));

function sizeOf(note: string): number {
  return Number(note.split('\n')[1]);
}

describe.each(dialectsUnderTest())('the log with witnesses, on %s', (dialect: StoreDialect) => {
  let target: StoreTarget;
  const cleanups: Array<() => Promise<unknown>> = [];

  async function dir(label: string): Promise<TempDir> {
    const made = await tempDataDir(label);
    cleanups.push(() => made.remove());
    return made;
  }

  async function witness(label: string, identity: TestLogIdentity, port = 0): Promise<RunningWitness> {
    const running = await startWitness((await dir(label)).dir, `witness.test/${label}`, [identity], { port });
    cleanups.push(() => running.close());
    return running;
  }

  async function log(
    identity: TestLogIdentity,
    witnesses: ReadonlyArray<{ url: string; vkey: string }>,
    store: Partial<StoreOptions>,
    extra: Record<string, string> = {},
    dataDir?: string,
  ): Promise<FastifyInstance> {
    const app = await buildTestLog(
      dataDir ?? (await dir('log')).dir,
      {
        ...identity.env,
        LOG_WITNESSES: logWitnessesEnv(witnesses),
        LOG_WITNESS_TIMEOUT_MS: '2000',
        ...extra,
      },
      store,
      { timers: false },
    );
    cleanups.push(() => app.close());
    return app;
  }

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'tlog-witnessing');
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  });
  afterAll(async () => {
    await target.cleanup();
  });

  it('publishes the newest checkpoint only with the quorum of valid cosignatures, one line per witness', async () => {
    const identity = testLogIdentity('log.test/quorum');
    const w1 = await witness('q1', identity);
    const w2 = await witness('q2', identity);
    const app = await log(identity, [w1, w2], target.fresh('quorum'));
    const policy = { witnesses: [w1.key, w2.key], quorum: 2 };

    // The empty tree's checkpoint was cosigned at start.
    const first = await servedCheckpoint(app);
    expect(first.status).toBe(200);
    expect(sizeOf(first.note)).toBe(0);
    expect(checkWitnessQuorum(first.note, policy).ok).toBe(true);

    await appendHashes(app, hashes(0, 5, 'quorum'));
    await app.transparencyLog.checkpointer.tick();
    const served = await servedCheckpoint(app);
    expect(served.status).toBe(200);
    expect(sizeOf(served.note)).toBe(5);
    const cosigned = checkWitnessQuorum(served.note, policy);
    expect(cosigned.ok && cosigned.value.map((c) => c.key.name)).toEqual([w1.key.name, w2.key.name]);
    // Still the log's checkpoint: its own signature lines come first and verify.
    const opened = openLogCheckpoint(served.note, app.transparencyLog.keys.verifiers);
    expect(opened.ok && opened.value.size).toBe(5);
    const parsed = parseSignedNote(served.note);
    expect(parsed.ok && parsed.value.signatures.length).toBe(app.transparencyLog.keys.verifiers.length + 2);

    // A tlog-proof carries the cosigned checkpoint: one file proves inclusion and the witness quorum offline.
    const proof = await app.inject({ method: 'GET', url: '/tlog-proof/3' });
    expect(proof.statusCode).toBe(200);
    const included = verifyTlogProof(proof.body, bundleHash(3, 'quorum'), app.transparencyLog.keys.verifiers);
    expect(included.ok).toBe(true);
    const proved = parseTlogProof(proof.body);
    expect(proved.ok && checkWitnessQuorum(proved.value.checkpoint, policy).ok).toBe(true);
    const signed = (await app.inject({ method: 'GET', url: '/root/signed' })).json();
    expect(signed.checkpoint).toBe(served.note);
    expect(signed.tree_size).toBe(5);
    const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/proto_log_witness_published_tree_size 5/);
    expect(metrics).toContain(
      `proto_log_witness_submissions_total{witness="${witnessId(w1.key)}",outcome="cosigned"} 2`,
    );
  });

  it('keeps the previous cosigned checkpoint while a witness is down, and catches up when it returns', async () => {
    const identity = testLogIdentity('log.test/down');
    const w1 = await witness('d1', identity);
    const w2Dir = (await dir('d2')).dir;
    const first = await startWitness(w2Dir, 'witness.test/d2', [identity]);
    const { port, url, vkey } = first;
    await first.close();
    const app = await log(identity, [w1, { url, vkey }], target.fresh('down'));

    // Witness 2 has never answered: nothing has the quorum, so nothing is published.
    expect((await servedCheckpoint(app)).status).toBe(503);
    await appendHashes(app, hashes(0, 3, 'down'));
    await app.transparencyLog.checkpointer.tick();
    const refused = await app.inject({ method: 'GET', url: '/checkpoint' });
    expect(refused.statusCode).toBe(503);
    expect(refused.json().error.retryable).toBe(true);
    expect((await app.inject({ method: 'GET', url: '/metrics' })).body).toMatch(
      /proto_log_witness_submissions_total\{witness="witness\.test\/d2\+[0-9a-f]{8}",outcome="unavailable"\} 2/,
    );

    // It comes back (same key, same state): the next round brings it up to date and publishes.
    let w2 = await startWitness(w2Dir, 'witness.test/d2', [identity], { port });
    await app.transparencyLog.checkpointer.tick();
    let served = await servedCheckpoint(app);
    expect(served.status).toBe(200);
    expect(sizeOf(served.note)).toBe(3);
    expect(checkWitnessQuorum(served.note, { witnesses: [w1.key, w2.key], quorum: 2 }).ok).toBe(true);

    // Down again: new entries are signed but the cosigned size 3 stays published.
    await w2.close();
    await appendHashes(app, hashes(3, 2, 'down'));
    await app.transparencyLog.checkpointer.tick();
    expect(app.transparencyLog.checkpointer.latest?.size).toBe(5);
    expect((await servedCheckpoint(app)).note).toBe(served.note);

    w2 = await startWitness(w2Dir, 'witness.test/d2', [identity], { port });
    cleanups.push(() => w2.close());
    await app.transparencyLog.checkpointer.tick();
    served = await servedCheckpoint(app);
    expect(sizeOf(served.note)).toBe(5);
    expect(checkWitnessQuorum(served.note, { witnesses: [w1.key, w2.key], quorum: 2 }).ok).toBe(true);
  });

  it('with k of n, publishes on k cosignatures and adds a late witness to the same checkpoint', async () => {
    const identity = testLogIdentity('log.test/late');
    const w1 = await witness('l1', identity);
    const lateDir = (await dir('l2')).dir;
    const first = await startWitness(lateDir, 'witness.test/l2', [identity]);
    const { port, url, vkey, key } = first;
    await first.close();
    const app = await log(identity, [w1, { url, vkey }], target.fresh('late'), { LOG_WITNESS_QUORUM: '1' });
    await appendHashes(app, hashes(0, 2, 'late'));
    await app.transparencyLog.checkpointer.tick();
    const one = await servedCheckpoint(app);
    expect(sizeOf(one.note)).toBe(2);
    expect(checkWitnessQuorum(one.note, { witnesses: [w1.key, key], quorum: 1 }).ok).toBe(true);
    expect(checkWitnessQuorum(one.note, { witnesses: [w1.key, key], quorum: 2 }).ok).toBe(false);

    const late = await startWitness(lateDir, 'witness.test/l2', [identity], { port });
    cleanups.push(() => late.close());
    await app.transparencyLog.checkpointer.tick();
    const both = await servedCheckpoint(app);
    expect(sizeOf(both.note)).toBe(2);
    expect(checkWitnessQuorum(both.note, { witnesses: [w1.key, key], quorum: 2 }).ok).toBe(true);
  });

  it('publishes with k of n (LOG_WITNESS_QUORUM) and keeps the cosignatures across a restart', async () => {
    const identity = testLogIdentity('log.test/restart');
    const w1 = await witness('r1', identity);
    const w2 = await witness('r2', identity);
    const store = target.fresh('restart');
    const logDir = (await dir('restart-log')).dir;
    const app = await log(identity, [w1, w2], store, { LOG_WITNESS_QUORUM: '1' }, logDir);
    await appendHashes(app, hashes(0, 4, 'restart'));
    await app.transparencyLog.checkpointer.tick();
    const before = await servedCheckpoint(app);
    expect(sizeOf(before.note)).toBe(4);
    await app.close();
    await w1.close();
    await w2.close();

    // Both witnesses are down now; the restarted log still serves what they cosigned, and at quorum 2.
    const again = await log(identity, [w1, w2], store, {}, logDir);
    const after = await servedCheckpoint(again);
    expect(after.status).toBe(200);
    expect(after.note).toBe(before.note);
    expect(checkWitnessQuorum(after.note, { witnesses: [w1.key, w2.key], quorum: 2 }).ok).toBe(true);
  });

  it('two replicas on one database submit at once and serve the same cosigned note', async () => {
    const identity = testLogIdentity('log.test/replicas');
    const w1 = await witness('p1', identity);
    const store = target.fresh('replicas');
    const a = await log(identity, [w1], store);
    const b = await log(identity, [w1], store);
    for (let round = 0; round < 3; round++) {
      await appendHashes(round % 2 === 0 ? a : b, hashes(round * 3, 3, 'replicas'));
      await Promise.all([a.transparencyLog.checkpointer.tick(), b.transparencyLog.checkpointer.tick()]);
      await Promise.all([a.transparencyLog.checkpointer.tick(), b.transparencyLog.checkpointer.tick()]);
      const [fromA, fromB] = [await servedCheckpoint(a), await servedCheckpoint(b)];
      expect(sizeOf(fromA.note)).toBe((round + 1) * 3);
      expect(fromB.note).toBe(fromA.note);
      expect(checkWitnessQuorum(fromA.note, { witnesses: [w1.key], quorum: 1 }).ok).toBe(true);
    }
  });

  it('answers a 409 with a consistency proof from the size the witness holds', async () => {
    const identity = testLogIdentity('log.test/conflict');
    const w1 = await witness('c1', identity);
    const app = await log(identity, [w1], target.fresh('conflict'));
    await appendHashes(app, hashes(0, 3, 'conflict'));
    await app.transparencyLog.checkpointer.tick();
    // The log forgets what the witness cosigned (a store restored from an older backup): it asks from 0.
    await app.transparencyLog.store.db.deleteFrom('tlog_cosignatures' as never).execute();
    await appendHashes(app, hashes(3, 4, 'conflict'));
    await app.transparencyLog.checkpointer.tick();
    const served = await servedCheckpoint(app);
    expect(sizeOf(served.note)).toBe(7);
    expect(checkWitnessQuorum(served.note, { witnesses: [w1.key], quorum: 1 }).ok).toBe(true);
  });

  it('never keeps a cosignature by another key, or over another checkpoint', async () => {
    const identity = testLogIdentity('log.test/hostile');
    const backend = selectCryptoBackend();
    const cosigner = testCosigner('witness.test/hostile');
    const impostor = backend.generateKeyPair('ed25519');
    let mode: 'other-key' | 'other-checkpoint' = 'other-key';
    // An attacker answering in the witness's name: a cosignature line that must not survive verification.
    const server: Server = createServer(async (request, response) => {
      let body = '';
      for await (const chunk of request) body += String(chunk);
      const note = body.slice(body.indexOf('\n\n') + 2);
      const text = note.slice(0, note.lastIndexOf('\n\n') + 1);
      const signed =
        mode === 'other-key'
          ? cosignCheckpoint(text, { ...cosigner, secretKey: impostor.secretKey }, 1_700_000_000)
          : cosignCheckpoint(text.replace(/\n\d+\n/, '\n999\n'), cosigner, 1_700_000_000);
      if (!signed.ok) throw new Error(signed.error.message);
      response.writeHead(200, { 'content-type': 'text/plain' }).end(formatSignatureLine(signed.value));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const app = await log(identity, [{ url, vkey: formatCosignerKey(cosigner) }], target.fresh('hostile'));

    mode = 'other-checkpoint';
    await appendHashes(app, hashes(0, 2, 'hostile'));
    await app.transparencyLog.checkpointer.tick();
    expect((await servedCheckpoint(app)).status).toBe(503);
    const cosignatures = app.transparencyLog.store.logCosignatures;
    expect(await cosignatures.lastCosignedSize(witnessId(cosigner))).toBeUndefined();
    expect((await app.inject({ method: 'GET', url: '/metrics' })).body).toMatch(/outcome="invalid"\} 2/);
  });
});
