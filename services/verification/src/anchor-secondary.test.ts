// POST /verify with a receipt that anchors a SHA3-256 secondary hash beside the bundle hash (issue 18, P51),
// made by the real anchor service on loopback (Bitcoin through the Esplora test server): the honest receipt
// passes; one whose secondary hash or path was changed fails with E202.
import { createHash } from 'node:crypto';
import {
  bitcoinPrivateKey,
  bitcoinWallet,
  type EsploraTestServer,
  OPERATOR,
  startEsploraServer,
  testApp,
} from '@proto/anchor/testing';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startApp } from './test-support.ts';

const KEY_HEX = '46'.repeat(32);
let esplora: EsploraTestServer;
let target: StoreTarget;
let anchor: FastifyInstance;
let verifier: RunningApp;
const bundle = sampleBundle({});
const secondary = `sha3-256:${createHash('sha3-256').update('the same bundle under SHA3').digest('hex')}`;
let receipt: Record<string, unknown>;

beforeAll(async () => {
  [esplora, target] = await Promise.all([
    startEsploraServer('regtest'),
    createStoreTarget('sqlite', 'verification-anchor-sha3'),
  ]);
  esplora.fund(bitcoinWallet(bitcoinPrivateKey(KEY_HEX, 'regtest'), 'regtest').address, 100_000);
  anchor = await testApp(
    {
      BTC_ESPLORA_URL: esplora.url,
      BTC_PRIVATE_KEY: KEY_HEX,
      BTC_NETWORK: 'regtest',
      BTC_CONFIRMATIONS: '1',
      BATCH_INTERVAL_MS: '0',
    },
    await target.open(),
  );
  const posted = await anchor.inject({
    method: 'POST',
    url: '/anchor',
    headers: { authorization: `Bearer ${OPERATOR}` },
    payload: { bundle_hash: bundle.bundleHash, bundle_hash_secondary: secondary, chain: 'bitcoin' },
  });
  expect(posted.statusCode).toBe(202);
  await anchor.anchorWorker.run('bitcoin', true);
  esplora.mine(1);
  await anchor.anchorWorker.run('bitcoin', true);
  const res = await anchor.inject({ method: 'GET', url: `/anchor/${bundle.bundleHash}` });
  receipt = (res.json() as { anchor_receipt: Record<string, unknown> }).anchor_receipt;
  verifier = await startApp({
    VERIFY_WORKERS: '1',
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    ANCHOR_VERIFY_ESPLORA_URL: esplora.url,
  });
});

afterAll(async () => {
  await verifier?.close();
  await anchor?.close();
  await target?.cleanup();
  await esplora?.close();
});

const verify = (anchorReceipt: unknown) =>
  postVerify(verifier.url, { signed_bundle: bundle.signed_bundle, anchor_receipt: anchorReceipt });

describe('a receipt anchoring the SHA3-256 hash too, through POST /verify', () => {
  it('passes the receipt as the anchor service wrote it', async () => {
    expect(receipt).toMatchObject({
      status: 'confirmed',
      bundle_hash_secondary: secondary,
      leaf_index_secondary: 1,
      batch_size: 2,
    });
    const { status, json } = await verify(receipt);
    expect(status).toBe(200);
    expect(json, JSON.stringify(json)).toMatchObject({ verified: true, checks: { anchor: 'pass' } });
  });

  it('fails a receipt whose secondary hash was replaced, or whose secondary path was changed: E202', async () => {
    const forgedHash = `sha3-256:${'5'.repeat(64)}`;
    const path = [...(receipt['merkle_path_secondary'] as string[])];
    path[0] = 'cd'.repeat(32);
    for (const lying of [
      { ...receipt, bundle_hash_secondary: forgedHash },
      { ...receipt, merkle_path_secondary: path },
    ]) {
      const { json } = await verify(lying);
      expect(json['verified']).toBe(false);
      expect(json['checks']).toMatchObject({ anchor: 'fail', classical_sig: 'pass' });
      expect(json['error_details']).toEqual([
        expect.objectContaining({
          code: 'PROTO-E202',
          check: 'anchor',
          message: expect.stringContaining('bundle_hash_secondary'),
        }),
      ]);
    }
  });
});
