// Bitcoin adapter end to end against an Esplora-compatible server on 127.0.0.1: the OP_RETURN bytes exactly,
// confirmations as blocks are mined, receipts verified from the raw transaction. DECISIONS D19, SPEC.md formats.

import { verifyAnchorReceipt } from '@proto/clients';
import { PROFILES } from '@proto/core';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import * as btc from '@scure/btc-signer';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BitcoinAdapter, bitcoinPrivateKey, bitcoinWallet } from './adapters/bitcoin.ts';
import { getReceipt, hashOf, postAnchor, testApp } from './testing/app.ts';
import { type EsploraTestServer, startEsploraServer } from './testing/esplora-server.ts';
import { batchTree } from './worker.ts';

const KEY_HEX = '44'.repeat(32);
let esplora: EsploraTestServer;
let target: StoreTarget;
let app: FastifyInstance;
const wif = btc.WIF(btc.TEST_NETWORK).encode(Buffer.from(KEY_HEX, 'hex'));
const wallet = bitcoinWallet(bitcoinPrivateKey(KEY_HEX, 'regtest'), 'regtest');
const hashes = ['btc 1', 'btc 2'].map(hashOf);

beforeAll(async () => {
  esplora = await startEsploraServer('regtest');
  esplora.fund(wallet.address, 100_000);
  target = await createStoreTarget('sqlite', 'anchor-btc');
  app = await testApp(
    {
      BTC_ESPLORA_URL: esplora.url,
      BTC_PRIVATE_KEY: wif,
      BTC_NETWORK: 'regtest',
      BTC_CONFIRMATIONS: '6',
      BATCH_INTERVAL_MS: '0',
    },
    await target.open(),
  );
});

afterAll(async () => {
  await app?.close();
  await target?.cleanup();
  await esplora?.close();
});

describe('anchoring on Bitcoin through Esplora', () => {
  it('takes the key as WIF or hex, pays from its P2WPKH address and lists the chain in /health', async () => {
    expect(bitcoinPrivateKey(wif, 'regtest')).toEqual(bitcoinPrivateKey(KEY_HEX, 'regtest'));
    expect(wallet.address).toMatch(/^bcrt1q/);
    const health = (await app.inject({ method: 'GET', url: '/health' })).json();
    expect(health.chains).toEqual([
      expect.objectContaining({ name: 'bitcoin', network: 'regtest', address: wallet.address }),
    ]);
  });

  it('broadcasts one transaction whose OP_RETURN is exactly `proto:v2:` + the batch root (73 bytes)', async () => {
    for (const h of hashes) expect((await postAnchor(app, h, 'bitcoin')).statusCode).toBe(202);
    await app.anchorWorker.run('bitcoin', true);
    expect(esplora.transactions.size).toBe(1);
    const receipt = await getReceipt(app, hashes[0]!);
    expect(receipt).toMatchObject({
      chain: 'bitcoin',
      network: 'regtest',
      status: 'submitted',
      confirmations: 0,
      batch_size: 2,
    });
    const stored = esplora.transactions.get(receipt['tx_id'] as string)!;
    const tx = stored.tx;
    const scripts = Array.from({ length: tx.outputsLength }, (_, i) =>
      Buffer.from(tx.getOutput(i).script as Uint8Array),
    );
    const dataOutputs = scripts.filter((s) => s[0] === 0x6a);
    expect(dataOutputs).toHaveLength(1);
    const payload = Buffer.from(`proto:v2:${receipt['batch_root'] as string}`, 'ascii');
    expect(payload.length).toBe(73);
    expect(dataOutputs[0]!.toString('hex')).toBe(`6a49${payload.toString('hex')}`);
    expect(tx.getOutput(scripts.indexOf(dataOutputs[0]!)).amount).toBe(0n);
  });

  it('counts confirmations as blocks are mined and confirms at BTC_CONFIRMATIONS', async () => {
    esplora.mine(1);
    await app.anchorWorker.run('bitcoin', true);
    const mined = await getReceipt(app, hashes[1]!);
    expect(mined).toMatchObject({ status: 'submitted', confirmations: 1, block_height: 101 });
    esplora.mine(5);
    await app.anchorWorker.run('bitcoin', true);
    const confirmed = await getReceipt(app, hashes[1]!);
    expect(confirmed).toMatchObject({
      status: 'confirmed',
      confirmations: 6,
      block_height: 101,
      leaf_index: 1,
    });
    expect(confirmed['anchored_at']).toBe(new Date((1_750_000_000 + 101 * 600) * 1000).toISOString());
  });

  it('verifies each receipt from the raw transaction and refuses it for another hash', async () => {
    for (const h of hashes) {
      const check = await verifyAnchorReceipt(await getReceipt(app, h), h, {
        esplora: esplora.url,
        minConfirmations: 6,
      });
      expect(check).toMatchObject({ status: 'pass', kind: 'bitcoin', confirmations: 6 });
    }
    const receipt = await getReceipt(app, hashes[0]!);
    expect(await verifyAnchorReceipt(receipt, hashes[1]!, { esplora: esplora.url })).toMatchObject({
      status: 'fail',
    });
    expect(
      await verifyAnchorReceipt({ ...receipt, block_height: 50 }, hashes[0]!, { esplora: esplora.url }),
    ).toMatchObject({
      status: 'fail',
    });
    const unknownTx = await verifyAnchorReceipt({ ...receipt, tx_id: 'ab'.repeat(32) }, hashes[0]!, {
      esplora: esplora.url,
    });
    expect(unknownTx).toMatchObject({ status: 'fail' });
  });

  it('chains the next batch on the unconfirmed change and never rebroadcasts a confirmed write', async () => {
    const next = [hashOf('btc 3'), hashOf('btc 4')];
    for (const h of next) await postAnchor(app, h, 'bitcoin');
    await app.anchorWorker.run('bitcoin', true);
    const a = await getReceipt(app, next[0]!);
    expect(a['tx_id']).not.toBe((await getReceipt(app, hashes[0]!))['tx_id']);
    expect(esplora.transactions.size).toBe(2);
    const before = esplora.broadcasts.length;
    await app.anchorWorker.run('bitcoin', true);
    expect(esplora.broadcasts.length).toBe(before);
  });

  it('a write stored but never broadcast (crash before sending) goes out later with the very same bytes', async () => {
    const h = hashOf('btc stored only');
    await postAnchor(app, h, 'bitcoin');
    const repo = app.anchorStore.anchor;
    const batch = (await repo.closeBatch('bitcoin', { max: 10, build: batchTree }))!;
    const adapter = new BitcoinAdapter({
      esploraUrl: esplora.url,
      privateKey: KEY_HEX,
      network: 'regtest',
      confirmations: 6,
      feeRate: 2,
      profile: PROFILES.proto,
    });
    const intent = await adapter.prepare(batch);
    expect(await repo.acquireLease('bitcoin', app.anchorWorker.owner, 30_000)).toBe(true);
    expect(await repo.recordIntent(batch.id, intent, app.anchorWorker.owner)).toBe(true);
    expect(esplora.transactions.has(intent.txId as string)).toBe(false);
    await app.anchorWorker.run('bitcoin', true);
    expect(esplora.broadcasts.at(-1)).toBe(intent.rawTx);
    expect((await getReceipt(app, h))['tx_id']).toBe(intent.txId);
  });

  it('a write the network refuses fails its batch; the hash is queued again and written anew', async () => {
    const h = hashOf('btc refused');
    await postAnchor(app, h, 'bitcoin');
    esplora.rejectNext('bad-txns-inputs-missingorspent');
    await app.anchorWorker.run('bitcoin', true);
    const refused = await app.anchorStore.anchor.latest(h, 'bitcoin');
    expect(refused?.item).toMatchObject({ state: 'queued', attempt: 2 });
    await app.anchorWorker.run('bitcoin', true);
    const receipt = await getReceipt(app, h);
    expect(receipt).toMatchObject({ status: 'submitted', batch_size: 1 });
    expect(esplora.transactions.has(receipt['tx_id'] as string)).toBe(true);
  });
});
