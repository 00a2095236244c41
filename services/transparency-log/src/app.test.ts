// The log over HTTP (app.inject) on SQLite and PostgreSQL: appends, proofs against signed checkpoints, pages,
// operator token, push-back, restart, key and origin pinning. SPEC.md "Transparency log service"; D18, D22.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  encodeBase64,
  openLogCheckpoint,
  parseVerifierKey,
  rfc9162LeafHash,
  selectCryptoBackend,
  verifyTlogConsistency,
  verifyTlogInclusion,
  verifyTlogProof,
} from '@proto/core';
import type { StoreDialect, StoreOptions } from '@proto/store';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KEY_FILES } from './signing-keys.ts';
import {
  buildTestLog,
  bundleHash,
  digestOf,
  hex,
  naiveRoot,
  OPERATOR_AUTH,
  tempDataDir,
} from './test-support.ts';

const TOKEN = 'operator-token-for-tests-0123456789';

describe.each(dialectsUnderTest())('transparency log over HTTP on %s', (dialect: StoreDialect) => {
  let target: StoreTarget;
  const cleanups: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'tlog-app');
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  afterAll(async () => {
    await target.cleanup();
  });

  /** A fresh log (own database and DATA_DIR) unless `reuse` names an earlier one's. */
  async function open(
    label: string,
    env: Record<string, string> = {},
    reuse?: { dataDir: string; store: StoreOptions },
  ): Promise<{ app: FastifyInstance; dataDir: string; store: StoreOptions }> {
    let dataDir = reuse?.dataDir;
    if (dataDir === undefined) {
      const temp = await tempDataDir(label);
      cleanups.push(temp.remove);
      dataDir = temp.dir;
    }
    const store = reuse?.store ?? target.fresh(label);
    const app = await buildTestLog(dataDir, env, store, { timers: false });
    cleanups.push(() => app.close());
    return { app, dataDir, store };
  }

  function add(app: FastifyInstance, hash: unknown, headers: Record<string, string> = OPERATOR_AUTH) {
    return app.inject({ method: 'POST', url: '/add', payload: { bundle_hash: hash }, headers });
  }

  async function signedKeys(app: FastifyInstance) {
    const body = (await app.inject({ url: '/root/signed' })).json();
    return body.verifier_keys.map((vkey: string) => {
      const key = parseVerifierKey(vkey);
      if (!key.ok) throw new Error(key.error.message);
      return key.value;
    });
  }

  it('answers 201 for a new hash and 200 with the same index for a repeat; 400 E001 for malformed hashes', async () => {
    const { app, dataDir } = await open('add');
    const hash = bundleHash(1);
    const first = await add(app, hash);
    expect(first.statusCode).toBe(201);
    const body = first.json();
    expect(body).toEqual({
      log_index: 0,
      timestamp: expect.any(String),
      leaf_hash: hex(rfc9162LeafHash(digestOf(hash))),
      tree_size: 1,
    });
    const again = await add(app, hash);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(body);
    expect((await add(app, bundleHash(2))).json().log_index).toBe(1);

    for (const bad of [
      hash.toUpperCase(),
      hash.replace('sha256:', 'sha3-256:'),
      hash.slice('sha256:'.length),
      `${hash} `,
      `${hash}00`,
      42,
      null,
    ]) {
      const res = await add(app, bad);
      expect(res.statusCode, String(bad)).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'PROTO-E001', retryable: false });
    }
    // Keys generated at first start: DATA_DIR, mode 0600.
    for (const file of Object.values(KEY_FILES))
      expect((await stat(join(dataDir, file))).mode & 0o777).toBe(0o600);
    const missing = await app.inject({ method: 'POST', url: '/add', payload: {}, headers: OPERATOR_AUTH });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.code).toBe('PROTO-E001');
  });

  it('serves proofs that verify offline against the signed checkpoint and its published keys', async () => {
    const { app } = await open('proofs');
    const hashes = Array.from({ length: 37 }, (_, i) => bundleHash(i, 'proofs'));
    const added = await Promise.all(hashes.map((h) => add(app, h)));
    const indexOf = new Map(added.map((res, i) => [hashes[i] as string, res.json().log_index as number]));
    expect(new Set(indexOf.values()).size).toBe(37);
    await app.transparencyLog.checkpointer.tick();

    const keys = await signedKeys(app);
    expect(keys.map((k: { alg: string }) => k.alg)).toEqual(['ed25519', 'ml-dsa-65']);
    const signed = (await app.inject({ url: '/root/signed' })).json();
    expect(signed).toMatchObject({ tree_size: 37, origin: 'signed-bundles.local/log' });
    expect(signed.signatures.map((s: { alg: string }) => s.alg)).toEqual(['ed25519', 'ml-dsa-65']);
    const text = await app.inject({ url: '/checkpoint' });
    expect(text.headers['content-type']).toMatch(/^text\/plain/);
    expect(text.body).toBe(signed.checkpoint);
    const checkpoint = openLogCheckpoint(text.body, keys);
    if (!checkpoint.ok) throw new Error(checkpoint.error.message);
    expect(hex(checkpoint.value.root)).toBe(signed.root);
    const root = (await app.inject({ url: '/root' })).json();
    expect(root).toEqual({ root: signed.root, tree_size: 37, timestamp: expect.any(String) });

    for (const hash of hashes) {
      const index = indexOf.get(hash) as number;
      const proof = (await app.inject({ url: `/proof/${index}?tree_size=37` })).json();
      expect(proof.leaf_hash).toBe(hex(rfc9162LeafHash(digestOf(hash))));
      expect(verifyTlogInclusion(checkpoint.value, { bundleHash: hash, index, proof: proof.proof }).ok).toBe(
        true,
      );
    }
    const tlogProof = await app.inject({ url: `/tlog-proof/${indexOf.get(hashes[5] as string)}` });
    expect(tlogProof.body.startsWith('c2sp.org/tlog-proof@v1\n')).toBe(true);
    expect(verifyTlogProof(tlogProof.body, hashes[5] as string, keys).ok).toBe(true);

    // Consistency from an earlier size, its root recomputed here from the leaves in log order.
    const ordered = [...hashes].sort((a, b) => (indexOf.get(a) as number) - (indexOf.get(b) as number));
    const firstTen = naiveRoot(ordered.map(digestOf), 10);
    const consistency = (await app.inject({ url: '/consistency?first=10&second=37' })).json();
    expect(consistency.first_root).toBe(hex(firstTen));
    expect(verifyTlogConsistency({ size: 10, root: firstTen }, checkpoint.value, consistency.proof).ok).toBe(
      true,
    );
    expect((await app.inject({ url: '/consistency?first=10' })).json().second).toBe(37);

    const status = async (url: string) => (await app.inject({ url })).statusCode;
    expect(await status('/proof/37')).toBe(404);
    expect(await status('/proof/3?tree_size=38')).toBe(404);
    expect(await status('/proof/30?tree_size=30')).toBe(400);
    expect(await status('/proof/abc')).toBe(400);
    expect(await status('/proof/-1')).toBe(400);
    expect(await status('/consistency?first=5&second=40')).toBe(404);
    expect(await status('/consistency?first=6&second=5')).toBe(400);
    expect(await status('/consistency')).toBe(400);
    expect(await status('/checkpoint?tree_size=36')).toBe(404);
    expect(await status('/checkpoint?tree_size=37')).toBe(200);
    const notYet = await add(app, bundleHash(99, 'proofs'));
    const uncovered = await app.inject({ url: `/tlog-proof/${notYet.json().log_index}` });
    expect(uncovered.statusCode).toBe(404);
    expect(uncovered.json().error.retryable).toBe(true);
    expect(uncovered.headers['retry-after']).toBeDefined();
  });

  it('pages /entries within ENTRIES_PAGE_MAX and the tree size', async () => {
    const { app } = await open('entries', { ENTRIES_PAGE_MAX: '5' });
    for (let i = 0; i < 8; i++) await add(app, bundleHash(i, 'entries'));
    const page = (await app.inject({ url: '/entries?start=0&end=100' })).json();
    expect(page).toMatchObject({ start: 0, end: 5, tree_size: 8 });
    expect(page.entries.map((e: { log_index: number }) => e.log_index)).toEqual([0, 1, 2, 3, 4]);
    expect(page.entries[2]).toEqual({
      log_index: 2,
      bundle_hash: bundleHash(2, 'entries'),
      leaf_hash: hex(rfc9162LeafHash(digestOf(bundleHash(2, 'entries')))),
      timestamp: expect.any(String),
    });
    expect((await app.inject({ url: '/entries?start=6' })).json()).toMatchObject({ start: 6, end: 8 });
    expect((await app.inject({ url: '/entries?start=20' })).json().entries).toEqual([]);
    expect((await app.inject({ url: '/entries?start=4&end=2' })).statusCode).toBe(400);
  });

  it('requires the operator token for /add, a generated one when OPERATOR_TOKEN is unset', async () => {
    const open1 = await open('token', { OPERATOR_TOKEN: `old-token-0123456789,${TOKEN}` });
    const app = open1.app;
    const none = await add(app, bundleHash(1, 'token'), {});
    expect(none.statusCode).toBe(401);
    expect(none.json().error.code).toBe('UNAUTHORIZED');
    expect(
      (await add(app, bundleHash(1, 'token'), { authorization: 'Bearer wrong-token-0123456789' })).statusCode,
    ).toBe(401);
    expect((await add(app, bundleHash(1, 'token'), { authorization: `Bearer ${TOKEN}` })).statusCode).toBe(
      201,
    );
    expect((await app.inject({ url: '/proof/0' })).statusCode).toBe(200);
    const open2 = await open('generated', { OPERATOR_TOKEN: '' });
    expect((await add(open2.app, bundleHash(1, 'token'), {})).statusCode).toBe(401);
    expect((await add(open2.app, bundleHash(1, 'token'))).statusCode).toBe(401);
  });

  it('rate-limits appends per client IP (ADD_RATE_LIMIT_PER_MINUTE)', async () => {
    const { app } = await open('rate', { ADD_RATE_LIMIT_PER_MINUTE: '3' });
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await add(app, bundleHash(i, 'rate'))).statusCode);
    expect(codes).toEqual([201, 201, 201, 429]);
  });

  it('pushes back with 503 E702 and Retry-After when MAX_PENDING appends wait', async () => {
    const { app } = await open('full', { MAX_PENDING: '2', BATCH_WAIT_MS: '300' });
    const results = await Promise.all([1, 2, 3].map((i) => add(app, bundleHash(i, 'full'))));
    const codes = results.map((r) => r.statusCode).sort();
    expect(codes).toEqual([201, 201, 503]);
    const refused = results.find((r) => r.statusCode === 503);
    expect(refused?.json().error).toMatchObject({ code: 'PROTO-E702', retryable: true });
    expect(refused?.headers['retry-after']).toBe('1');
  });

  it('commits the appends it accepted before it closes the store', async () => {
    const { app, dataDir, store } = await open('drain', { BATCH_WAIT_MS: '5000' });
    // A first batch of three: the next one then waits for three appends, or 5 s.
    await Promise.all([0, 1, 2].map((i) => add(app, bundleHash(i, 'drain'))));
    const waiting = [add(app, bundleHash(3, 'drain')), add(app, bundleHash(4, 'drain'))];
    await new Promise((r) => setTimeout(r, 20));
    expect(app.transparencyLog.sequencer.pending).toBe(2);
    await app.close();
    expect((await Promise.all(waiting)).map((r) => r.statusCode)).toEqual([201, 201]);
    const reopened = await open('drain', {}, { dataDir, store });
    expect((await reopened.app.inject({ url: '/root' })).json().tree_size).toBe(5);
  });

  it('keeps the tree, its checkpoints and its indices across a restart', async () => {
    const first = await open('restart');
    for (let i = 0; i < 20; i++) await add(first.app, bundleHash(i, 'restart'));
    const before = await first.app.transparencyLog.checkpointer.tick();
    const oldNote = (await first.app.inject({ url: '/checkpoint' })).body;
    const keys = await signedKeys(first.app);
    await first.app.close();

    const second = await open('restart', {}, { dataDir: first.dataDir, store: first.store });
    expect((await second.app.inject({ url: '/root' })).json()).toMatchObject({
      tree_size: 20,
      root: hex(before?.root as Uint8Array),
    });
    expect((await second.app.inject({ url: '/checkpoint' })).body).toBe(oldNote);
    expect((await add(second.app, bundleHash(3, 'restart'))).json().log_index).toBe(3);
    expect((await add(second.app, bundleHash(20, 'restart'))).json().log_index).toBe(20);
    await second.app.transparencyLog.checkpointer.tick();
    const older = openLogCheckpoint(oldNote, keys);
    const newer = openLogCheckpoint((await second.app.inject({ url: '/checkpoint' })).body, keys);
    if (!older.ok || !newer.ok) throw new Error('checkpoints must verify with the same keys after a restart');
    expect(newer.value.size).toBe(21);
    const proof = (await second.app.inject({ url: '/consistency?first=20&second=21' })).json().proof;
    expect(verifyTlogConsistency(older.value, newer.value, proof).ok).toBe(true);
    const health = (await second.app.inject({ url: '/health' })).json();
    expect(health).toMatchObject({ status: 'ok', tree_size: 21, signed_tree_size: 21, pending: 0 });
    expect((await second.app.inject({ url: '/ready' })).statusCode).toBe(200);
  });

  it('refuses to start with other keys or another origin; LOG_ACCEPT_NEW_KEYS rotates the keys', async () => {
    const backend = selectCryptoBackend();
    const ed = encodeBase64(backend.generateKeyPair('ed25519').secretKey);
    const pq = encodeBase64(backend.generateKeyPair('ml-dsa-65').secretKey);
    const first = await open('pinning', { LOG_ED25519_KEY: ed, LOG_MLDSA_KEY: pq });
    await add(first.app, bundleHash(1, 'pin'));
    await first.app.close();
    const reuse = { dataDir: first.dataDir, store: first.store };

    const otherEd = encodeBase64(backend.generateKeyPair('ed25519').secretKey);
    await expect(open('pinning', { LOG_ED25519_KEY: otherEd, LOG_MLDSA_KEY: pq }, reuse)).rejects.toThrow(
      /LOG_ACCEPT_NEW_KEYS/,
    );
    await expect(
      open('pinning', { LOG_ED25519_KEY: ed, LOG_MLDSA_KEY: pq, LOG_ORIGIN: 'other.example/log' }, reuse),
    ).rejects.toThrow(/LOG_ORIGIN/);
    await expect(
      open('pinning', { LOG_ED25519_KEY: 'not base64!', LOG_MLDSA_KEY: pq }, reuse),
    ).rejects.toThrow(/LOG_ED25519_KEY/);

    const rotated = await open(
      'pinning',
      { LOG_ED25519_KEY: otherEd, LOG_MLDSA_KEY: pq, LOG_ACCEPT_NEW_KEYS: 'true' },
      reuse,
    );
    const keys = await signedKeys(rotated.app);
    expect(keys.length).toBe(2);
    // The old checkpoint (size 1) is still served; new ones are signed with the new key.
    await add(rotated.app, bundleHash(2, 'pin'));
    await rotated.app.transparencyLog.checkpointer.tick();
    expect(openLogCheckpoint((await rotated.app.inject({ url: '/checkpoint' })).body, keys).ok).toBe(true);
  });
});
