// The witness over real HTTP on SQLite and PostgreSQL (c2sp.org/tlog-witness add-checkpoint): cosigns a
// first checkpoint and consistent extensions (cosignatures checked with core's verifyCosignatures), refuses
// per the spec, survives restarts, and lets only one of racing requests win. Issue 18 item 2; P46–P49.
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseCosignerKey, selectCryptoBackend, verifyCosignatures } from '@proto/core';
import type { StoreDialect, StoreOptions } from '@proto/store';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import { listenOnPort0, tempDir } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestWitness, TestLog } from './test-support.ts';
import { WITNESS_KEY_FILE } from './witness-key.ts';

interface Running {
  readonly app: FastifyInstance;
  readonly url: string;
  readonly dataDir: string;
  readonly store: StoreOptions;
  close(): Promise<void>;
}

async function post(url: string, body: string | Uint8Array, type = 'text/plain') {
  const response = await fetch(`${url}/add-checkpoint`, {
    method: 'POST',
    headers: { 'content-type': type },
    body,
  });
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    text: await response.text(),
  };
}

/** The cosignatures of `witnessVkey` in `note` + the answered lines, verified by core. */
function cosignaturesOf(note: string, answer: string, witnessVkey: string) {
  const key = parseCosignerKey(witnessVkey);
  if (!key.ok) throw new Error(key.error.message);
  return verifyCosignatures(`${note}${answer}`, [key.value]);
}

describe.each(dialectsUnderTest())('witness over HTTP on %s', (dialect: StoreDialect) => {
  let target: StoreTarget;
  const cleanups: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'witness-http');
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  afterAll(async () => {
    await target.cleanup();
  });

  /** A listening witness of `logs`; `reuse` restarts one on the same DATA_DIR and database. */
  async function start(
    label: string,
    logs: readonly TestLog[],
    reuse?: { dataDir: string; store: StoreOptions },
    env: Record<string, string> = {},
  ): Promise<Running> {
    let dataDir = reuse?.dataDir;
    if (dataDir === undefined) {
      const temp = await tempDir(`witness-${label}`);
      cleanups.push(temp.remove);
      dataDir = temp.dir;
    }
    const store = reuse?.store ?? target.fresh(label);
    const app = await buildTestWitness(
      dataDir,
      { WITNESS_LOGS: logs.map((l) => l.vkey).join('\n'), ...env },
      store,
    );
    const listening = await listenOnPort0(app);
    let closed = false;
    const close = async () => {
      if (closed) return;
      closed = true;
      await listening.close();
    };
    cleanups.push(close);
    return { app, url: listening.url, dataDir, store, close };
  }

  it('cosigns a first checkpoint and a consistent extension; the cosignatures verify', async () => {
    const log = new TestLog('log.test/first').grow(5);
    const w = await start('first', [log]);
    const key = await fetch(`${w.url}/witness/key`);
    expect(key.status).toBe(200);
    expect((await key.text()).trim()).toBe(w.app.witness.vkey);

    const first = await post(w.url, log.addCheckpointBody(0));
    expect(first.status).toBe(200);
    expect(first.type).toMatch(/^text\/plain/);
    expect(first.text).toMatch(/^\u2014 witness\.test\/w1 [A-Za-z0-9+/=]+\n$/);
    const verified = cosignaturesOf(log.checkpoint(), first.text, w.app.witness.vkey);
    expect(verified.ok && verified.value).toHaveLength(1);
    if (verified.ok) expect(Math.abs(verified.value[0]!.timestamp - Date.now() / 1000)).toBeLessThan(60);

    log.grow(17);
    const second = await post(w.url, log.addCheckpointBody(5));
    expect(second.status).toBe(200);
    expect(cosignaturesOf(log.checkpoint(), second.text, w.app.witness.vkey).ok).toBe(true);
    // The same checkpoint again (old = its own size, same root) is cosigned again, as the spec allows.
    expect((await post(w.url, log.addCheckpointBody(22))).status).toBe(200);

    // Monitoring retrieval: the latest cosigned checkpoint carries the log's signature and the cosignature.
    const hash = createHash('sha256').update(log.origin).digest('hex');
    const monitored = await fetch(`${w.url}/${hash}/checkpoint`);
    expect(monitored.status).toBe(200);
    const note = await monitored.text();
    expect(note.startsWith(`${log.origin}\n22\n`)).toBe(true);
    expect(cosignaturesOf(note, '', w.app.witness.vkey).ok && note.split('\u2014').length).toBe(3);
    expect((await fetch(`${w.url}/${'0'.repeat(64)}/checkpoint`)).status).toBe(404);

    const metrics = await (await fetch(`${w.url}/metrics`)).text();
    expect(metrics).toMatch(/proto_witness_cosigned_total\{origin="log\.test\/first"\} 3/);
  });

  it('refuses per the spec: 409 with the known size, 404, 403, 400, 422, and 413', async () => {
    const log = new TestLog('log.test/refusals').grow(8);
    const w = await start('refusals', [log]);
    expect((await post(w.url, log.addCheckpointBody(0))).status).toBe(200);
    log.grow(4);

    const stale = await post(w.url, log.addCheckpointBody(3));
    expect(stale).toEqual({ status: 409, type: 'text/x.tlog.size', text: '8\n' });
    // A fresh client that knows nothing asks from 0 and learns the size the same way.
    expect((await post(w.url, log.addCheckpointBody(0))).text).toBe('8\n');

    const stranger = new TestLog('log.test/unknown').grow(3);
    expect((await post(w.url, stranger.addCheckpointBody(0))).status).toBe(404);

    // Signed by a key with the log's name that the witness does not trust: no trusted signature.
    const impostor = new TestLog(log.origin).grow(12);
    impostor.leaves.splice(0, 12, ...log.leaves);
    const untrusted = await post(w.url, impostor.addCheckpointBody(8));
    expect(untrusted.status).toBe(403);
    expect(JSON.parse(untrusted.text).error.code).toBe('PROTO-E103');
    // The trusted key's line with a broken signature: malformed per signed-note, 403.
    const good = log.checkpoint();
    // One character of the signature bytes (past the 4-byte key ID, so the line still names the log's key).
    const at = good.length - 10;
    const broken = `${good.slice(0, at)}${good[at] === 'A' ? 'B' : 'A'}${good.slice(at + 1)}`;
    expect(broken).not.toBe(good);
    const badSig = await post(w.url, log.addCheckpointBody(8, 12, broken));
    expect(badSig.status).toBe(403);
    expect(JSON.parse(badSig.text).error.code).toBe('PROTO-E100');

    // Old size above the checkpoint size: 400.
    expect((await post(w.url, log.addCheckpointBody(8, 12).replace('old 8', 'old 13'))).status).toBe(400);

    // A proof that does not link 8 to 12 (one hash changed): 422.
    const body = log.addCheckpointBody(8);
    const lines = body.split('\n');
    lines[1] = Buffer.alloc(32, 7).toString('base64');
    const inconsistent = await post(w.url, lines.join('\n'));
    expect(inconsistent.status).toBe(422);
    expect(JSON.parse(inconsistent.text).error.code).toBe('PROTO-E202');

    // Malformed bodies: 400 with the schema code, never a crash.
    const note = log.checkpoint();
    for (const bad of [
      '',
      'old 8',
      `old 08\n\n${note}`,
      `old -1\n\n${note}`,
      `old 8 \n\n${note}`,
      `new 8\n\n${note}`,
      `old 8\nnot base64!\n\n${note}`,
      `old 8\n${Buffer.alloc(31).toString('base64')}\n\n${note}`,
      `old 99999999999999999999\n\n${note}`,
      `old 8\n\n${log.origin}\n12\nnot-a-root\n\n\u2014 x AAAA\n`,
      `old 8\n${`${Buffer.alloc(32).toString('base64')}\n`.repeat(64)}\n${note}`,
    ]) {
      const answer = await post(w.url, bad);
      expect([bad.slice(0, 30), answer.status]).toEqual([bad.slice(0, 30), 400]);
      expect(JSON.parse(answer.text).error.code).toMatch(/^PROTO-E001$|^BAD_REQUEST$/);
    }
    expect((await post(w.url, Uint8Array.of(0x6f, 0x6c, 0x64, 0x20, 0xff, 0x0a, 0x0a))).status).toBe(400);
    // Any label is read as text, JSON included; the body still has to be an add-checkpoint body.
    expect((await post(w.url, '{"old":8}', 'application/json')).status).toBe(400);

    const oversize = await post(w.url, `old 8\n\n${'x'.repeat(70_000)}`);
    expect(oversize.status).toBe(413);

    // Nothing above moved the head.
    const refusals = await (await fetch(`${w.url}/metrics`)).text();
    for (const reason of ['old_size_mismatch', 'unknown_log', 'bad_signature', 'malformed', 'inconsistent'])
      expect(refusals).toMatch(new RegExp(`proto_witness_refused_total\\{reason="${reason}"\\} [1-9]`));
    expect((await post(w.url, log.addCheckpointBody(8))).status).toBe(200);
  });

  it('refuses the split view: another tree of the same size, or a fork that grew, is never cosigned', async () => {
    const log = new TestLog('log.test/split').grow(10);
    const w = await start('split', [log]);
    expect((await post(w.url, log.addCheckpointBody(0))).status).toBe(200);

    // The same log key signs a second tree of size 10 (a split view): same size, other root.
    const fork = new TestLog(log.origin);
    Object.assign(fork, { signer: log.signer, vkey: log.vkey });
    fork.grow(10, 'fork');
    const sameSize = await post(w.url, fork.addCheckpointBody(10));
    expect(sameSize.status).toBe(422);
    // The fork grows and sends a proof of its own history from 10: it does not link to the cosigned root.
    fork.grow(6, 'fork');
    expect((await post(w.url, fork.addCheckpointBody(10))).status).toBe(422);
    // A size-0 checkpoint must have the empty root; a proof from 0 must be empty.
    const w0 = await start('split-zero', [log]);
    expect(
      (
        await post(
          w0.url,
          log.addCheckpointBody(0, 10).replace('old 0\n', `old 0\n${Buffer.alloc(32).toString('base64')}\n`),
        )
      ).status,
    ).toBe(422);

    // The honest log still extends from what was cosigned.
    log.grow(6);
    expect((await post(w.url, log.addCheckpointBody(10))).status).toBe(200);
  });

  it('keeps its key and its heads across a restart', async () => {
    const log = new TestLog('log.test/restart').grow(4);
    const w = await start('restart', [log]);
    expect((await post(w.url, log.addCheckpointBody(0))).status).toBe(200);
    const vkey = w.app.witness.vkey;
    const keyFile = join(w.dataDir, WITNESS_KEY_FILE);
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    await w.close();

    const again = await start('restart', [log], { dataDir: w.dataDir, store: w.store });
    expect(again.app.witness.vkey).toBe(vkey);
    log.grow(3);
    expect(await post(again.url, log.addCheckpointBody(0))).toMatchObject({ status: 409, text: '4\n' });
    const fork = new TestLog(log.origin);
    Object.assign(fork, { signer: log.signer, vkey: log.vkey });
    expect((await post(again.url, fork.grow(4, 'other').addCheckpointBody(4))).status).toBe(422);
    const extended = await post(again.url, log.addCheckpointBody(4));
    expect(extended.status).toBe(200);
    expect(cosignaturesOf(log.checkpoint(), extended.text, vkey).ok).toBe(true);
  });

  it('lets exactly one of racing requests from the same old size win, on one instance and on two', async () => {
    const log = new TestLog('log.test/race').grow(3);
    const a = await start('race', [log]);
    const b = await start('race-b', [log], { dataDir: a.dataDir, store: a.store });
    expect((await post(a.url, log.addCheckpointBody(0))).status).toBe(200);
    // Ten different extensions of size 3, each consistent on its own, sent at once to two instances.
    const forks = Array.from({ length: 10 }, (_, i) => {
      const fork = new TestLog(log.origin);
      Object.assign(fork, { signer: log.signer, vkey: log.vkey });
      fork.leaves.push(...log.leaves);
      return fork.grow(1 + i, `race${i}`);
    });
    const answers = await Promise.all(
      forks.map((fork, i) => post(i % 2 === 0 ? a.url : b.url, fork.addCheckpointBody(3))),
    );
    const winners = answers.flatMap((answer, i) => (answer.status === 200 ? [i] : []));
    expect(winners).toHaveLength(1);
    const winner = forks[winners[0]!]!;
    for (const answer of answers.filter((x) => x.status !== 200))
      expect(answer).toEqual({ status: 409, type: 'text/x.tlog.size', text: `${winner.leaves.length}\n` });
    // Only the winner's tree can be extended now.
    const loser = forks[(winners[0]! + 1) % forks.length]!;
    expect((await post(b.url, loser.addCheckpointBody(winner.leaves.length))).status).not.toBe(200);
    winner.grow(2, 'after');
    expect((await post(b.url, winner.addCheckpointBody(winner.leaves.length - 2))).status).toBe(200);
  });
});

describe('witness configuration', () => {
  it('starts with no log configured and answers 404; health and key endpoints answer', async () => {
    const temp = await tempDir('witness-config');
    try {
      const app = await buildTestWitness(temp.dir, { WITNESS_KEY_FILE: join(temp.dir, 'keys', 'w.key') });
      const listening = await listenOnPort0(app);
      try {
        const health = await fetch(`${listening.url}/health`);
        expect(health.status).toBe(200);
        const docs = await fetch(`${listening.url}/docs/json`);
        expect(docs.status).toBe(200);
        expect(Object.keys(((await docs.json()) as { paths: object }).paths)).toEqual(
          expect.arrayContaining(['/add-checkpoint', '/witness/key', '/{originHash}/checkpoint']),
        );
        const log = new TestLog().grow(1);
        expect((await post(listening.url, log.addCheckpointBody(0))).status).toBe(404);
        const vkey = (await (await fetch(`${listening.url}/witness/key`)).text()).trim();
        const key = parseCosignerKey(vkey);
        expect(key.ok && key.value.name).toBe('witness.test/w1');
        expect(selectCryptoBackend().name).toBeTruthy();
        expect((await stat(join(temp.dir, 'keys', 'w.key'))).mode & 0o777).toBe(0o600);
      } finally {
        await listening.close();
      }
    } finally {
      await temp.remove();
    }
  });
});
