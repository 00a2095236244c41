// The Bitcoin adapter's Esplora explorer answering something that is not JSON (P177): a proxy's or captive
// portal's page with status 200, or an answer cut short. That is the explorer unavailable (a TransientError: the
// pass is logged at warn as the chain unreachable and counted, the request stays queued), not a broken pass logged
// at error. A local node:http front sits in front of the test Esplora server and answers HTML on the path aimed at.
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import { type HostileFront, startHostileFront } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bitcoinPrivateKey, bitcoinWallet } from '../../src/adapters/bitcoin.ts';
import { getReceipt, hashOf, postAnchor, testApp } from '../../src/testing/app.ts';
import { type EsploraTestServer, startEsploraServer } from '../../src/testing/esplora-server.ts';

const CHAIN = 'bitcoin';
const BTC_KEY_HEX = '46'.repeat(32);
const wallet = bitcoinWallet(bitcoinPrivateKey(BTC_KEY_HEX, 'regtest'), 'regtest');

let esplora: EsploraTestServer;
let front: HostileFront;
let target: StoreTarget;
let app: FastifyInstance;
/** A path ending the front answers with a page instead of the explorer's JSON; undefined: forward everything. */
let pageFor: string | undefined;
let page = '<html><body>Sign in to continue</body></html>';
const logLines: { level: number; msg: string; err?: unknown }[] = [];

const failedPasses = () => logLines.filter((l) => l.msg === 'anchor: pass failed');
const unreachable = () =>
  logLines.filter((l) => l.msg === 'anchor: chain unreachable, retrying on the next pass');

beforeAll(async () => {
  esplora = await startEsploraServer('regtest');
  esplora.fund(wallet.address, 100_000);
  front = await startHostileFront(async (request, res) => {
    if (pageFor !== undefined && request.method === 'GET' && request.url.endsWith(pageFor)) {
      res.writeHead(200, { 'content-type': 'text/html' }).end(page);
      return;
    }
    const answer = await fetch(`${esplora.url}${request.url}`, {
      method: request.method,
      ...(request.method === 'POST' ? { body: request.body, headers: { 'content-type': 'text/plain' } } : {}),
    });
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
    res.end(await answer.text());
  });
  const frontUrl = front.url;
  target = await createStoreTarget('sqlite', 'anchor-esplora-non-json');
  app = await testApp(
    {
      LOG_LEVEL: 'warn',
      // The machine's load is not what these tests are about.
      MAX_EVENT_LOOP_DELAY_MS: '0',
      BTC_ESPLORA_URL: frontUrl,
      BTC_PRIVATE_KEY: BTC_KEY_HEX,
      BTC_NETWORK: 'regtest',
      BTC_CONFIRMATIONS: '1',
      BATCH_INTERVAL_MS: '0',
    },
    await target.open(),
    {
      logger: {
        stream: {
          write(line: string) {
            logLines.push(JSON.parse(line) as { level: number; msg: string });
          },
        },
      },
    },
  );
}, 60_000);

afterAll(async () => {
  await app?.close();
  await target?.cleanup();
  await esplora?.close();
  await front?.close();
});

beforeEach(() => {
  pageFor = undefined;
  page = '<html><body>Sign in to continue</body></html>';
  logLines.length = 0;
});

async function passWhileAnswering(path: string): Promise<void> {
  pageFor = path;
  try {
    await app.anchorWorker.run(CHAIN, true);
  } finally {
    pageFor = undefined;
  }
}

function expectTransient(what: string): void {
  expect(failedPasses()).toEqual([]);
  expect(unreachable().length).toBeGreaterThan(0);
  expect(JSON.stringify(unreachable())).toContain(what);
}

describe('P177: an Esplora answer that is not JSON is the explorer unavailable, retried', () => {
  it('an HTML page for the wallet UTXO query: nothing is signed, the pass is the chain unreachable', async () => {
    const h = hashOf('esplora html utxo');
    const broadcasts = esplora.broadcasts.length;
    expect((await postAnchor(app, h, CHAIN)).statusCode).toBe(202);
    await passWhileAnswering('/utxo');
    expectTransient('/utxo');
    expect(esplora.broadcasts.length).toBe(broadcasts);
    expect((await getReceipt(app, h))['status']).toBe('pending');
    // The explorer answers again: the same request is written and confirmed.
    await app.anchorWorker.run(CHAIN, true);
    esplora.mine(1);
    await app.anchorWorker.run(CHAIN, true);
    expect(await getReceipt(app, h)).toMatchObject({ status: 'confirmed' });
  });

  it('an answer cut short for a sent transaction status: still unreachable, then confirmed', async () => {
    const h = hashOf('esplora truncated status');
    expect((await postAnchor(app, h, CHAIN)).statusCode).toBe(202);
    await app.anchorWorker.run(CHAIN, false);
    esplora.mine(1);
    logLines.length = 0;
    page = '{"confirmed":true,"block_hei';
    await passWhileAnswering('/status');
    expectTransient('/status');
    expect((await getReceipt(app, h))['status']).toBe('submitted');
    await app.anchorWorker.run(CHAIN, true);
    expect(await getReceipt(app, h)).toMatchObject({ status: 'confirmed' });
  });
});
