// POST /verify with an anchor_receipt made by the real anchor service on loopback (transparency log and Bitcoin
// through Esplora), checked through the operator's sources only: pass, contradiction, unreachable. D12, D19.
import { createServer, type Server } from 'node:http';
import {
  bitcoinPrivateKey,
  bitcoinWallet,
  type EsploraTestServer,
  type LogTestServer,
  postAnchor,
  startEsploraServer,
  startLogServer,
  testApp,
} from '@proto/anchor/testing';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startApp } from './test-support.ts';

const KEY_HEX = '45'.repeat(32);
const wallet = bitcoinWallet(bitcoinPrivateKey(KEY_HEX, 'regtest'), 'regtest');

let log: LogTestServer;
let esplora: EsploraTestServer;
let target: StoreTarget;
let anchor: FastifyInstance;
/** A server the receipts may name but the operator never configured: it must never be called. */
let rogue: Server;
let rogueUrl: string;
let rogueHits = 0;
let deadUrl: string;

let configured: RunningApp;
let unreachable: RunningApp;
let unconfigured: RunningApp;

const anchored = sampleBundle({});
const other = sampleBundle({});
const receipts: Record<string, Record<string, unknown>> = {};

async function receiptOf(bundleHash: string, chain: string): Promise<Record<string, unknown>> {
  const res = await anchor.inject({ method: 'GET', url: `/anchor/${bundleHash}?chain=${chain}` });
  if (res.statusCode !== 200) throw new Error(`GET /anchor: ${res.statusCode} ${res.body}`);
  return (res.json() as { anchor_receipt: Record<string, unknown> }).anchor_receipt;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

beforeAll(async () => {
  [log, esplora, target] = await Promise.all([
    startLogServer(),
    startEsploraServer('regtest'),
    createStoreTarget('sqlite', 'verification-anchor'),
  ]);
  esplora.fund(wallet.address, 100_000);
  anchor = await testApp(
    {
      TL_URL: log.url,
      TL_TOKEN: log.token,
      BTC_ESPLORA_URL: esplora.url,
      BTC_PRIVATE_KEY: KEY_HEX,
      BTC_NETWORK: 'regtest',
      BTC_CONFIRMATIONS: '1',
      BATCH_INTERVAL_MS: '0',
    },
    await target.open(),
  );
  for (const chain of ['transparency-log', 'bitcoin']) {
    expect((await postAnchor(anchor, anchored.bundleHash, chain)).statusCode).toBe(202);
    await anchor.anchorWorker.run(chain, true);
  }
  // A second Bitcoin transaction (another batch), for a receipt pointing at the wrong one.
  await postAnchor(anchor, other.bundleHash, 'bitcoin');
  await anchor.anchorWorker.run('bitcoin', true);
  esplora.mine(1);
  await anchor.anchorWorker.run('bitcoin', true);
  await log.checkpoint(); // the real log signs on a timer: sign the tree holding the receipt's leaf now
  receipts['log'] = await receiptOf(anchored.bundleHash, 'transparency-log');
  receipts['bitcoin'] = await receiptOf(anchored.bundleHash, 'bitcoin');
  receipts['otherBitcoin'] = await receiptOf(other.bundleHash, 'bitcoin');

  rogue = createServer((_req, res) => {
    rogueHits += 1;
    res.writeHead(500);
    res.end();
  });
  rogueUrl = await listen(rogue);
  const dead = createServer();
  deadUrl = await listen(dead);
  await new Promise<void>((resolve) => dead.close(() => resolve()));

  const common = { VERIFY_WORKERS: '1', VERIFY_RATE_LIMIT_PER_MINUTE: '0' };
  [configured, unreachable, unconfigured] = await Promise.all([
    startApp({
      ...common,
      ANCHOR_VERIFY_LOG_URL: log.url,
      ANCHOR_VERIFY_LOG_KEY: log.verifierKey,
      ANCHOR_VERIFY_ESPLORA_URL: esplora.url,
    }),
    startApp({ ...common, ANCHOR_VERIFY_ESPLORA_URL: deadUrl, ANCHOR_VERIFY_TIMEOUT_MS: '1000' }),
    startApp(common),
  ]);
});

afterAll(async () => {
  await Promise.all([configured, unreachable, unconfigured].map((app) => app?.close()));
  await anchor?.close();
  await target?.cleanup();
  await Promise.all([log?.close(), esplora?.close()]);
  await new Promise<void>((resolve) => (rogue ? rogue.close(() => resolve()) : resolve()));
});

const verify = (app: RunningApp, receipt: unknown, bundle = anchored) =>
  postVerify(app.url, { signed_bundle: bundle.signed_bundle, anchor_receipt: receipt });

describe('anchor receipts (D19) through the operator’s sources', () => {
  it.each([
    ['a transparency-log receipt, against the log’s signed checkpoint', 'log'],
    ['a Bitcoin receipt, read through the configured Esplora', 'bitcoin'],
  ])('passes %s', async (_what, kind) => {
    expect(receipts[kind]).toMatchObject({ bundle_hash: anchored.bundleHash, status: 'confirmed' });
    const { status, json } = await verify(configured, receipts[kind]);
    expect(status).toBe(200);
    expect(json, JSON.stringify(json)).toMatchObject({ verified: true, checks: { anchor: 'pass' } });
    // Checked against signed data: no "unsigned answer trusted" or other warning.
    expect(json['warnings']).toBeUndefined();
  });

  it('fails a receipt the chain contradicts (its transaction carries another root): E202', async () => {
    const lying = { ...receipts['bitcoin'], tx_id: receipts['otherBitcoin']!['tx_id'] };
    const { json } = await verify(configured, lying);
    expect(json['verified']).toBe(false);
    expect(json['checks']).toMatchObject({ anchor: 'fail', classical_sig: 'pass', hash_chain: 'pass' });
    expect(json['error_details']).toEqual([
      {
        code: 'PROTO-E202',
        check: 'anchor',
        message: expect.stringMatching(/^anchor_receipt: /),
        retryable: false,
      },
    ]);
  });

  it('fails a receipt for another bundle: the hash is recomputed, never taken from the receipt', async () => {
    const { json } = await verify(configured, receipts['log'], other);
    expect(json['verified']).toBe(false);
    expect(json['error_details']).toEqual([
      expect.objectContaining({
        code: 'PROTO-E202',
        check: 'anchor',
        message: expect.stringContaining(other.bundleHash),
      }),
    ]);
  });

  it('skips with a warning carrying a retryable code when the source is unreachable (not a failure)', async () => {
    const { json } = await verify(unreachable, receipts['bitcoin']);
    expect(json, JSON.stringify(json)).toMatchObject({ verified: true, checks: { anchor: 'skipped' } });
    expect(json['warnings']).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^anchor_receipt not checked \[PROTO-E701, retryable\]: .*unreachable/),
      ]),
    );
    expect(json['error_details']).toBeUndefined();
  });

  it('never calls a log the receipt names but the operator did not configure', async () => {
    const { json } = await verify(configured, { ...receipts['log'], log_url: rogueUrl });
    expect(json).toMatchObject({ verified: true, checks: { anchor: 'skipped' } });
    expect(json['warnings']).toEqual(
      expect.arrayContaining([expect.stringContaining('is not among the logs this verifier may call')]),
    );
    expect(rogueHits).toBe(0);
  });

  it('without configured sources a supplied receipt is skipped with a warning; none supplied stays skipped', async () => {
    const supplied = await verify(unconfigured, receipts['bitcoin']);
    expect(supplied.json).toMatchObject({ verified: true, checks: { anchor: 'skipped' } });
    expect(supplied.json['warnings']).toEqual([
      'anchor_receipt not checked: no anchor sources are configured',
    ]);
    const none = await postVerify(configured.url, { signed_bundle: anchored.signed_bundle });
    expect(none.json).toMatchObject({ verified: true, checks: { anchor: 'skipped' } });
    expect(none.json['warnings']).toBeUndefined();
  });
});
