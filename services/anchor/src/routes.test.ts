// The HTTP contract of the anchor service: operator token (D22), E001 for a malformed bundle_hash, 400 for an
// unconfigured chain, latest receipt by hash, /health listing the chains, and the log adapter's receipts (D18, D19).

import { verifyAnchorReceipt } from '@proto/clients';
import { ConfigError } from '@proto/service-kit';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAnchorConfig } from './config.ts';
import { getReceipt, hashOf, OPERATOR, postAnchor, testApp } from './testing/app.ts';
import { type LogTestServer, startLogServer } from './testing/log-server.ts';

const LOG_TOKEN = 'log-append-token-0123456789';
let log: LogTestServer;
let target: StoreTarget;
let app: FastifyInstance;

beforeAll(async () => {
  log = await startLogServer({ token: LOG_TOKEN });
  target = await createStoreTarget('sqlite', 'anchor-routes');
  app = await testApp({ TL_URL: log.url, TL_TOKEN: LOG_TOKEN }, await target.open());
});

afterAll(async () => {
  await app?.close();
  await target?.cleanup();
  await log?.close();
});

describe('POST /anchor', () => {
  it('requires the operator bearer token (401 with a code)', async () => {
    const none = await app.inject({
      method: 'POST',
      url: '/anchor',
      payload: { bundle_hash: hashOf('x'), chain: 'transparency-log' },
    });
    expect(none.statusCode).toBe(401);
    expect(none.json().error.code).toBe('UNAUTHORIZED');
    const wrong = await postAnchor(app, hashOf('x'), 'transparency-log', 'not-the-operator-token-at-all');
    expect(wrong.statusCode).toBe(401);
  });

  it('answers 400 PROTO-E001 for a bundle_hash not of the form sha256:<64 hex>', async () => {
    for (const bad of [
      'sha256:abc',
      `sha256:${'A'.repeat(64)}`,
      `sha3-256:${'a'.repeat(64)}`,
      'a'.repeat(64),
      42,
    ]) {
      const res = await postAnchor(app, bad as string, 'transparency-log');
      expect(res.statusCode, String(bad)).toBe(400);
      expect(res.json().error.code).toBe('PROTO-E001');
    }
    const missing = await app.inject({
      method: 'POST',
      url: '/anchor',
      headers: { authorization: `Bearer ${OPERATOR}` },
      payload: { chain: 'transparency-log' },
    });
    expect(missing.json().error.code).toBe('PROTO-E001');
  });

  it('answers 400 naming the configured chains for an unconfigured chain', async () => {
    const res = await postAnchor(app, hashOf('x'), 'dogecoin');
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({
      code: 'BAD_REQUEST',
      details: { configured: ['transparency-log'] },
    });
  });

  it('without `chain`, uses the only configured chain', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/anchor',
      headers: { authorization: `Bearer ${OPERATOR}` },
      payload: { bundle_hash: hashOf('no chain named') },
    });
    expect(res.statusCode).toBe(202);
    expect(res.json().anchor_receipt).toMatchObject({ log_url: log.url, status: 'pending' });
  });

  it('appends to the log at once (the log batches itself) and returns its receipt shape', async () => {
    const h = hashOf('log 1');
    const res = await postAnchor(app, h, 'transparency-log');
    expect(res.statusCode).toBe(202);
    await app.anchorWorker.run('transparency-log', true);
    const receipt = await getReceipt(app, h);
    expect(receipt).toMatchObject({
      log_url: log.url,
      bundle_hash: h,
      status: 'confirmed',
      confirmations: 1,
    });
    expect(receipt['leaf_index']).toBe(receipt['log_index']);
    expect(receipt['batch_size']).toBeGreaterThan(receipt['log_index'] as number);
    expect(receipt['merkle_path']).toEqual(receipt['merkle_proof']);
    expect(receipt).not.toHaveProperty('chain');
    expect(await verifyAnchorReceipt(receipt, h, { logs: [log.url] })).toMatchObject({
      status: 'pass',
      kind: 'log',
    });
    expect(await verifyAnchorReceipt(receipt, hashOf('log 2'), { logs: [log.url] })).toMatchObject({
      status: 'fail',
    });
    // A service verifier never follows a log_url it was not told to trust.
    expect(await verifyAnchorReceipt(receipt, h, {})).toMatchObject({ status: 'skipped', retryable: false });
  });

  it('is idempotent per hash and chain: the same hash twice is appended once', async () => {
    const h = hashOf('log twice');
    await postAnchor(app, h, 'transparency-log');
    const second = await postAnchor(app, h, 'transparency-log');
    await app.anchorWorker.run('transparency-log', true);
    expect(log.appends.filter((a) => a === h)).toHaveLength(1);
    expect([200, 202]).toContain(second.statusCode);
    const later = await postAnchor(app, h, 'transparency-log');
    expect(later.statusCode).toBe(200);
    expect(later.json().anchor_receipt.status).toBe('confirmed');
  });

  it("with the log's verifier key: checked against its signed checkpoint (same size, or by consistency proof)", async () => {
    const h = hashOf('log signed');
    await postAnchor(app, h, 'transparency-log');
    await app.anchorWorker.run('transparency-log', true);
    await log.checkpoint(); // the real log signs on a timer; sign the tree that holds h now
    const receipt = await getReceipt(app, h);
    const signed = { logs: [{ url: log.url, keys: [log.verifierKey] }] };
    const same = await verifyAnchorReceipt(receipt, h, signed);
    expect(same).toMatchObject({ status: 'pass', kind: 'log' });
    expect(same.message).toMatch(/signed checkpoint's root/);
    // The log grows: the receipt's root must be consistent with the newer signed checkpoint.
    await postAnchor(app, hashOf('log signed later'), 'transparency-log');
    await app.anchorWorker.run('transparency-log', true);
    await log.checkpoint();
    const later = await verifyAnchorReceipt(receipt, h, signed);
    expect(later).toMatchObject({ status: 'pass' });
    expect(later.message).toMatch(/consistent with the signed checkpoint/);
    // A receipt whose root the log never had fails the consistency proof.
    const forged = { ...receipt, batch_root: 'ab'.repeat(32), merkle_path: [], merkle_proof: [] };
    expect((await verifyAnchorReceipt(forged, h, signed)).status).toBe('fail');
    // A key the checkpoint is not signed with: nothing can be trusted, the check fails.
    const otherLog = await startLogServer();
    const other = otherLog.verifierKey;
    await otherLog.close();
    expect(
      (await verifyAnchorReceipt(receipt, h, { logs: [{ url: log.url, keys: [other] }] })).status,
    ).not.toBe('pass');
  });

  it('many hashes: each gets its own log index and a proof that verifies', async () => {
    const many = Array.from({ length: 20 }, (_, i) => hashOf(`log many ${i}`));
    for (const h of many) await postAnchor(app, h, 'transparency-log');
    await app.anchorWorker.run('transparency-log', true);
    const indexes = new Set<number>();
    for (const h of many) {
      const receipt = await getReceipt(app, h);
      indexes.add(receipt['log_index'] as number);
      expect((await verifyAnchorReceipt(receipt, h, { logs: [log.url] })).status).toBe('pass');
    }
    expect(indexes.size).toBe(20);
  });
});

describe('GET /anchor/:bundle_hash and /health', () => {
  it('404 for an unknown hash, 400 for a malformed one', async () => {
    expect((await app.inject({ method: 'GET', url: `/anchor/${hashOf('unknown')}` })).statusCode).toBe(404);
    const bad = await app.inject({ method: 'GET', url: '/anchor/sha256:xyz' });
    expect(bad.statusCode).toBe(400);
  });

  it('/health lists the configured chains and the mode, never a key', async () => {
    const body = (await app.inject({ method: 'GET', url: '/health' })).json();
    expect(body).toMatchObject({
      status: 'ok',
      service: 'anchor',
      mode: 'batch',
      batch_max: 1024,
      batch_interval_ms: 60000,
    });
    expect(body.chains).toEqual([{ name: 'transparency-log', kind: 'log', log_url: log.url }]);
    expect(JSON.stringify(body)).not.toContain(LOG_TOKEN);
  });
});

describe('configuration', () => {
  it('defaults: port 3001, batch mode, 1,024 per batch, 60 s', () => {
    const config = loadAnchorConfig({ TL_URL: 'http://127.0.0.1:3002' });
    expect(config).toMatchObject({
      PORT: 3001,
      ANCHOR_MODE: 'batch',
      BATCH_MAX: 1024,
      BATCH_INTERVAL_MS: 60000,
      ETH_CONFIRMATIONS: 12,
      BTC_CONFIRMATIONS: 6,
    });
  });

  it('starts with no chain, and refuses a partial chain and a bad key', () => {
    expect(() => loadAnchorConfig({})).not.toThrow();
    expect(() => loadAnchorConfig({ TL_TOKEN: 'x', ETH_CHAIN_ID: '1' })).toThrow(ConfigError);
    expect(() => loadAnchorConfig({ ETH_RPC_URL: 'http://127.0.0.1:8545' })).toThrow(
      /ETH_CHAIN_ID, ETH_CONTRACT, ETH_PRIVATE_KEY/,
    );
    expect(() =>
      loadAnchorConfig({ BTC_ESPLORA_URL: 'http://127.0.0.1:3000', BTC_PRIVATE_KEY: 'not a key' }),
    ).toThrow(/BTC_PRIVATE_KEY/);
  });

  it('P168: ANCHOR_UPSTREAM_TIMEOUT_MS defaults to 10 s and refuses a value outside 1 s to 5 min, naming it', () => {
    expect(loadAnchorConfig({}).ANCHOR_UPSTREAM_TIMEOUT_MS).toBe(10_000);
    expect(loadAnchorConfig({ ANCHOR_UPSTREAM_TIMEOUT_MS: '2500' }).ANCHOR_UPSTREAM_TIMEOUT_MS).toBe(2500);
    for (const bad of ['0', '999', '300001', 'soon'])
      expect(() => loadAnchorConfig({ ANCHOR_UPSTREAM_TIMEOUT_MS: bad })).toThrow(
        /ANCHOR_UPSTREAM_TIMEOUT_MS/,
      );
  });
});
