// Bitcoin's realities against the Esplora-compatible test server: a confirmed anchor whose block is reorganised
// away goes back to pending, is sent again and ends confirmed; a transaction stuck under the miners' fee floor is
// replaced (BIP 125) until it confirms. Issue 18 item 5; DECISIONS D19.
import { verifyAnchorReceipt } from '@proto/clients';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import * as btc from '@scure/btc-signer';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bitcoinPrivateKey, bitcoinWallet } from './adapters/bitcoin.ts';
import { getReceipt, hashOf, postAnchor, testApp } from './testing/app.ts';
import { type EsploraTestServer, startEsploraServer } from './testing/esplora-server.ts';

const KEY_HEX = '55'.repeat(32);
const wallet = bitcoinWallet(bitcoinPrivateKey(KEY_HEX, 'regtest'), 'regtest');
let esplora: EsploraTestServer;
let target: StoreTarget;
let app: FastifyInstance;

/**
 * BTC_RBF_AFTER_MS: an hour, as a deployment might set it, and this file's clock (`Date` only, moving with real
 * time) is moved past it where a case needs a write to be stuck that long. With a real delay of 300 ms, a pass
 * that ran later than that on a busy machine bumped a write the case expected sent once or re-sent as it was.
 */
const RBF_AFTER_MS = 3_600_000;
const pastRbfDelay = () => vi.setSystemTime(Date.now() + RBF_AFTER_MS + 1_000);
const run = () => app.anchorWorker.run('bitcoin', true);

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  esplora = await startEsploraServer('regtest');
  esplora.fund(wallet.address, 1_000_000);
  target = await createStoreTarget('sqlite', 'anchor-btc-realities');
  app = await testApp(
    {
      BTC_ESPLORA_URL: esplora.url,
      BTC_PRIVATE_KEY: KEY_HEX,
      BTC_NETWORK: 'regtest',
      BTC_CONFIRMATIONS: '3',
      BTC_FEE_RATE: '2',
      BTC_RBF_AFTER_MS: String(RBF_AFTER_MS),
      BTC_MAX_FEE_RATE: '50',
      ANCHOR_REORG_WATCH_DEPTH: '10',
      BATCH_INTERVAL_MS: '0',
    },
    await target.open(),
  );
});

afterAll(async () => {
  await app?.close();
  await target?.cleanup();
  await esplora?.close();
  vi.useRealTimers();
});

function sequences(hex: string): number[] {
  const tx = btc.Transaction.fromRaw(Buffer.from(hex, 'hex'), { allowUnknownOutputs: true });
  return Array.from({ length: tx.inputsLength }, (_, i) => tx.getInput(i).sequence as number);
}

describe('a reorganisation on Bitcoin', () => {
  it('a confirmed anchor whose block leaves the best chain goes back to pending, is re-sent and ends confirmed', async () => {
    const h = hashOf('btc reorg');
    await postAnchor(app, h, 'bitcoin');
    await run();
    const sent = await getReceipt(app, h);
    const txId = sent['tx_id'] as string;
    esplora.mine(3);
    await run();
    const confirmed = await getReceipt(app, h);
    expect(confirmed).toMatchObject({ status: 'confirmed', confirmations: 3, block_height: 101 });

    // The block holding the anchor and the two above it are replaced by a longer branch that never saw it.
    esplora.reorg(101, 4, { dropTransactions: true });
    expect(esplora.transactions.has(txId)).toBe(false);
    await run();
    const reopened = await getReceipt(app, h);
    expect(reopened).toMatchObject({ status: 'pending', confirmations: 0, tx_id: txId });
    expect(reopened['block_height']).toBeUndefined();
    // The next pass sends the very same bytes again: same inputs, so it can never be written twice.
    const before = esplora.broadcasts.length;
    await run();
    expect(esplora.broadcasts.length).toBe(before + 1);
    expect(esplora.broadcasts.at(-1)).toBe(esplora.transactions.get(txId)?.hex);
    expect(esplora.transactions.get(txId)?.height).toBeNull();
    expect(await getReceipt(app, h)).toMatchObject({ status: 'submitted', confirmations: 0, tx_id: txId });

    esplora.mine(3);
    await run();
    const final = await getReceipt(app, h);
    expect(final).toMatchObject({ status: 'confirmed', confirmations: 3, block_height: 105, tx_id: txId });
    expect(await verifyAnchorReceipt(final, h, { esplora: esplora.url, minConfirmations: 3 })).toMatchObject({
      status: 'pass',
      kind: 'bitcoin',
    });
  });

  it('a confirmed anchor re-mined lower in a new branch follows its new block and confirms again at depth', async () => {
    const h = hashOf('btc reorg remined');
    await postAnchor(app, h, 'bitcoin');
    await run();
    esplora.mine(3);
    await run();
    const first = await getReceipt(app, h);
    expect(first).toMatchObject({ status: 'confirmed' });
    const height = first['block_height'] as number;
    // The branch that wins still carries the transaction, but in its mempool first, then a block further up.
    esplora.reorg(height, 3);
    await run();
    expect(await getReceipt(app, h)).toMatchObject({ status: 'pending', confirmations: 0 });
    esplora.mine(1);
    await run();
    expect(await getReceipt(app, h)).toMatchObject({ status: 'submitted', confirmations: 1 });
    esplora.mine(2);
    await run();
    const final = await getReceipt(app, h);
    expect(final).toMatchObject({ status: 'confirmed', confirmations: 3, block_height: height + 3 });
    expect(await verifyAnchorReceipt(final, h, { esplora: esplora.url, minConfirmations: 3 })).toMatchObject({
      status: 'pass',
    });
  });

  it('a stale confirmed receipt (the old block) fails verification once the chain moved it', async () => {
    const h = hashOf('btc stale receipt');
    await postAnchor(app, h, 'bitcoin');
    await run();
    esplora.mine(3);
    await run();
    const stale = await getReceipt(app, h);
    esplora.reorg(stale['block_height'] as number, 2);
    esplora.mine(3);
    await run();
    expect(await verifyAnchorReceipt(stale, h, { esplora: esplora.url })).toMatchObject({ status: 'fail' });
    expect(await getReceipt(app, h)).toMatchObject({ status: 'confirmed' });
  });
});

describe('fee bumping on Bitcoin (BIP 125)', () => {
  it('signals replaceability; a write stuck under the fee floor is replaced with higher fees until it confirms', async () => {
    esplora.setMinFeeRate(7);
    const h = hashOf('btc stuck');
    await postAnchor(app, h, 'bitcoin');
    await run();
    const stuck = await getReceipt(app, h);
    const firstTx = stuck['tx_id'] as string;
    const first = esplora.transactions.get(firstTx)!;
    expect(sequences(first.hex).every((s) => s < 0xfffffffe)).toBe(true);
    expect(first.feeRate).toBeGreaterThanOrEqual(2);
    expect(first.feeRate).toBeLessThan(3);
    esplora.mine(1);
    expect(esplora.transactions.get(firstTx)?.height).toBeNull();

    // Past BTC_RBF_AFTER_MS: 2 → 4 sat/vB (still stuck), then 8 (mined).
    await run();
    expect((await getReceipt(app, h))['tx_id']).toBe(firstTx);
    pastRbfDelay();
    await run();
    const second = (await getReceipt(app, h))['tx_id'] as string;
    expect(second).not.toBe(firstTx);
    expect(esplora.transactions.has(firstTx)).toBe(false);
    expect(esplora.transactions.get(second)!.fee).toBeGreaterThan(first.fee);
    esplora.mine(1);
    pastRbfDelay();
    await run();
    const third = (await getReceipt(app, h))['tx_id'] as string;
    expect(third).not.toBe(second);
    expect(esplora.transactions.get(third)!.feeRate).toBeGreaterThanOrEqual(7);
    const batch = (await app.anchorStore.anchor.latest(h, 'bitcoin'))?.batch;
    expect(batch?.detail).toMatchObject({ replaces: [firstTx, second] });

    esplora.mine(3);
    await run();
    const final = await getReceipt(app, h);
    expect(final).toMatchObject({ status: 'confirmed', confirmations: 3, tx_id: third });
    expect(await verifyAnchorReceipt(final, h, { esplora: esplora.url, minConfirmations: 3 })).toMatchObject({
      status: 'pass',
    });
    esplora.setMinFeeRate(0);
  });

  it('a refused replacement keeps the original write, and no bump goes past BTC_MAX_FEE_RATE', async () => {
    esplora.setMinFeeRate(1000);
    const h = hashOf('btc stuck forever');
    await postAnchor(app, h, 'bitcoin');
    await run();
    const original = (await getReceipt(app, h))['tx_id'] as string;
    esplora.rejectNext('insufficient fee');
    pastRbfDelay();
    await run();
    expect((await getReceipt(app, h))['tx_id']).toBe(original);
    expect(esplora.transactions.has(original)).toBe(true);

    for (let i = 0; i < 6; i++) {
      pastRbfDelay();
      await run();
    }
    const receipt = await getReceipt(app, h);
    const tx = esplora.transactions.get(receipt['tx_id'] as string)!;
    expect(tx.feeRate).toBeGreaterThan(40);
    expect(tx.feeRate).toBeLessThan(51);
    esplora.setMinFeeRate(0);
    esplora.mine(3);
    await run();
    expect(await getReceipt(app, h)).toMatchObject({ status: 'confirmed', tx_id: receipt['tx_id'] });
  });
});
