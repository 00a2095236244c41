// The transparency log anchors its signed roots through this service over HTTP, and follows each pending receipt
// until the chain (the Esplora test server) buries it to BTC_CONFIRMATIONS.
// Issue 18 item 5; DECISIONS D18 (roots anchored on a timer), D19.
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bitcoinPrivateKey, bitcoinWallet } from './adapters/bitcoin.ts';
import { testApp } from './testing/app.ts';
import { type EsploraTestServer, startEsploraServer } from './testing/esplora-server.ts';
import { buildRootAnchoringLog, ROOT_ANCHORING_LOG_TOKEN } from './testing/log-server.ts';

const KEY_HEX = '66'.repeat(32);
const LOG_TOKEN = ROOT_ANCHORING_LOG_TOKEN;
let esplora: EsploraTestServer;
let target: StoreTarget;
let anchor: FastifyInstance;
let log: Awaited<ReturnType<typeof buildRootAnchoringLog>>;

beforeAll(async () => {
  esplora = await startEsploraServer('regtest');
  esplora.fund(bitcoinWallet(bitcoinPrivateKey(KEY_HEX, 'regtest'), 'regtest').address, 500_000);
  target = await createStoreTarget('sqlite', 'anchor-log-roots');
  anchor = await testApp(
    {
      BTC_ESPLORA_URL: esplora.url,
      BTC_PRIVATE_KEY: KEY_HEX,
      BTC_NETWORK: 'regtest',
      BTC_CONFIRMATIONS: '2',
      BATCH_INTERVAL_MS: '0',
    },
    await target.open(),
  );
  const anchorUrl = await anchor.listen({ port: 0, host: '127.0.0.1' });
  log = await buildRootAnchoringLog({ anchorUrl, chain: 'bitcoin', label: 'anchor-log-roots' });
});

afterAll(async () => {
  await log?.close();
  await anchor?.close();
  await target?.cleanup();
  await esplora?.close();
});

async function rootAnchor(): Promise<Record<string, unknown>> {
  return (await log.inject({ url: '/root/signed' })).json().root_anchor as Record<string, unknown>;
}

describe("the log's root anchoring follows its receipt to confirmed", () => {
  it('pending after the request, then its block once mined, confirmed once the chain reaches depth', async () => {
    const { checkpointer, anchorer } = log.transparencyLog;
    if (anchorer === undefined) throw new Error('root anchoring must be on');
    for (let i = 0; i < 3; i++) {
      const res = await log.inject({
        method: 'POST',
        url: '/add',
        headers: { authorization: `Bearer ${LOG_TOKEN}` },
        payload: { bundle_hash: `sha256:${String(i).repeat(64).slice(0, 64)}` },
      });
      expect(res.statusCode).toBeLessThan(300);
    }
    await checkpointer.tick();
    await anchorer.tick();
    expect(await rootAnchor()).toMatchObject({ tree_size: 3, status: 'pending', chain: 'bitcoin' });

    await anchor.anchorWorker.run('bitcoin', true);
    esplora.mine(1);
    await anchor.anchorWorker.run('bitcoin', true);
    await anchorer.tick();
    const buried = await rootAnchor();
    expect(buried).toMatchObject({ status: 'pending', block_height: 101 });
    expect(buried['tx_id']).toMatch(/^[0-9a-f]{64}$/);

    esplora.mine(1);
    await anchor.anchorWorker.run('bitcoin', true);
    await anchorer.tick();
    expect(await rootAnchor()).toMatchObject({
      status: 'confirmed',
      block_height: 101,
      tx_id: buried['tx_id'],
    });
  });
});
