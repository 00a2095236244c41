// The anchor service's alerting metrics read over GET /metrics: backlog, oldest pending request, wallet balance,
// send failures and an unreachable chain API (issue 16 item 3), against the stand-in Esplora and a real outage.

import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import * as btc from '@scure/btc-signer';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bitcoinPrivateKey, bitcoinWallet } from './adapters/index.ts';
import { hashOf, postAnchor, testApp } from './testing/app.ts';
import { type EsploraTestServer, startEsploraServer } from './testing/esplora-server.ts';
import { batchTree } from './worker.ts';

const KEY_HEX = '45'.repeat(32);
let esplora: EsploraTestServer;
let target: StoreTarget;
let app: FastifyInstance;
const wallet = bitcoinWallet(bitcoinPrivateKey(KEY_HEX, 'regtest'), 'regtest');

async function scrape(): Promise<string> {
  const res = await app.inject({ method: 'GET', url: '/metrics' });
  expect(res.statusCode).toBe(200);
  return res.body;
}

function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

beforeAll(async () => {
  esplora = await startEsploraServer('regtest');
  esplora.fund(wallet.address, 250_000);
  target = await createStoreTarget('sqlite', 'anchor-metrics');
  app = await testApp(
    {
      BTC_ESPLORA_URL: esplora.url,
      BTC_PRIVATE_KEY: btc.WIF(btc.TEST_NETWORK).encode(Buffer.from(KEY_HEX, 'hex')),
      BTC_NETWORK: 'regtest',
      BATCH_INTERVAL_MS: '600000',
      // Nothing listens on port 9: the log chain is down for the whole file.
      TL_URL: 'http://127.0.0.1:9',
    },
    await target.open(),
  );
});

afterAll(async () => {
  await app?.close();
  await target?.cleanup();
  await esplora?.close();
});

describe('anchor metrics', () => {
  it('exports the wallet balance in whole coins', async () => {
    expect(sample(await scrape(), 'proto_anchor_wallet_balance', 'chain="bitcoin",currency="BTC"')).toBe(
      0.0025,
    );
  });

  it('exports the backlog and the age of the oldest pending request per chain', async () => {
    let text = await scrape();
    expect(sample(text, 'proto_anchor_backlog', 'chain="bitcoin"')).toBe(0);
    expect(sample(text, 'proto_anchor_oldest_pending_age_seconds', 'chain="bitcoin"')).toBe(0);
    for (let i = 0; i < 3; i++)
      expect((await postAnchor(app, hashOf(`metrics ${i}`), 'bitcoin')).statusCode).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    text = await scrape();
    expect(sample(text, 'proto_anchor_backlog', 'chain="bitcoin"')).toBe(3);
    expect(sample(text, 'proto_anchor_oldest_pending_age_seconds', 'chain="bitcoin"')).toBeGreaterThanOrEqual(
      1,
    );
  });

  it('counts a chain whose API does not answer, and a write it refuses', async () => {
    expect((await postAnchor(app, hashOf('metrics log'), 'transparency-log')).statusCode).toBe(202);
    await app.anchorWorker.run('transparency-log', true);
    let text = await scrape();
    expect(
      sample(text, 'proto_anchor_send_failures_total', 'chain="transparency-log",kind="transient"'),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'proto_dependency_up', 'dependency="chain:transparency-log"')).toBe(0);
    expect(sample(text, 'proto_dependency_up', 'dependency="chain:bitcoin"')).toBe(1);

    // A refused Bitcoin write: its batch fails and is counted as refused.
    await app.anchorStore.anchor.closeBatch('bitcoin', { max: 100, build: batchTree });
    esplora.rejectNext('bad-txns-inputs-missingorspent');
    await app.anchorWorker.run('bitcoin', false);
    text = await scrape();
    expect(sample(text, 'proto_anchor_send_failures_total', 'chain="bitcoin",kind="refused"')).toBe(1);
    expect(sample(text, 'proto_anchor_batches_total', 'chain="bitcoin",outcome="failed"')).toBe(1);
  });

  it('still answers a scrape while its store is down, reporting the store down (soak: PostgreSQL restart)', async () => {
    // A store that fails every query, as one whose server went away does; the scrape must not fail with it,
    // or ServiceDown fires instead of DependencyDown{dependency="store"}.
    const lost = await target.open();
    const outage = await testApp({ TL_URL: 'http://127.0.0.1:9' }, lost);
    try {
      await lost.close();
      const res = await outage.inject({ method: 'GET', url: '/metrics' });
      expect(res.statusCode).toBe(200);
      expect(sample(res.body, 'proto_dependency_up', 'dependency="store"')).toBe(0);
      expect(sample(res.body, 'proto_anchor_backlog', 'chain="transparency-log"')).toBeUndefined();
    } finally {
      await outage.close().catch(() => undefined);
    }
  });
});
