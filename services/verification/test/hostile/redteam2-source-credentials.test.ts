// An operator whose Esplora explorer or EVM node needs a credential writes it in the URL (`https://:<key>@…`, the
// form RPC providers document). fetch refuses a URL with userinfo and its refusal repeats the whole URL, which the
// anchor check put into its `skipped` message: every caller who sent a genuine bundle with a receipt read the
// operator's credential in the /verify answer. Brief redteam2; P529.
import {
  bitcoinPrivateKey,
  bitcoinWallet,
  type EsploraTestServer,
  postAnchor,
  startEsploraServer,
  testApp,
} from '@proto/anchor/testing';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startApp } from '../../src/test-support.ts';

const SECRET = 'expl0rer-s3cret';
const wallet = bitcoinWallet(bitcoinPrivateKey('46'.repeat(32), 'regtest'), 'regtest');
let esplora: EsploraTestServer;
let target: StoreTarget;
let anchor: FastifyInstance;
const anchored = sampleBundle({});
let receipt: Record<string, unknown>;
const apps: RunningApp[] = [];

beforeAll(async () => {
  [esplora, target] = await Promise.all([
    startEsploraServer('regtest'),
    createStoreTarget('sqlite', 'redteam2-source-credentials'),
  ]);
  esplora.fund(wallet.address, 100_000);
  anchor = await testApp(
    {
      BTC_ESPLORA_URL: esplora.url,
      BTC_PRIVATE_KEY: '46'.repeat(32),
      BTC_NETWORK: 'regtest',
      BTC_CONFIRMATIONS: '1',
      BATCH_INTERVAL_MS: '0',
    },
    await target.open(),
  );
  expect((await postAnchor(anchor, anchored.bundleHash, 'bitcoin')).statusCode).toBe(202);
  await anchor.anchorWorker.run('bitcoin', true);
  esplora.mine(1);
  await anchor.anchorWorker.run('bitcoin', true);
  const res = await anchor.inject({ method: 'GET', url: `/anchor/${anchored.bundleHash}?chain=bitcoin` });
  receipt = (res.json() as { anchor_receipt: Record<string, unknown> }).anchor_receipt;
});

afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  await anchor?.close();
  await target?.cleanup();
  await esplora?.close();
});

/** The boot error, or (booted) the /verify answer to the genuine bundle and its receipt. */
async function bootOrAnswer(env: Record<string, string>): Promise<string> {
  let app: RunningApp;
  try {
    app = await startApp({ VERIFY_RATE_LIMIT_PER_MINUTE: '0', ...env });
  } catch (error) {
    return String(error);
  }
  apps.push(app);
  const { json } = await postVerify(app.url, {
    signed_bundle: anchored.signed_bundle,
    anchor_receipt: receipt,
  });
  return `booted; /verify answered ${JSON.stringify(json)}`;
}

describe('P529: an anchor source URL with userinfo refuses to boot, never repeated', () => {
  const withCredential = () => esplora.url.replace('http://', `http://ops:${SECRET}@`);
  const cases: [string, () => Record<string, string>, string][] = [
    [
      'ANCHOR_VERIFY_ESPLORA_URL',
      () => ({ ANCHOR_VERIFY_ESPLORA_URL: withCredential() }),
      'ANCHOR_VERIFY_ESPLORA_URL',
    ],
    [
      'ANCHOR_VERIFY_ESPLORA_URL per network (JSON)',
      () => ({ ANCHOR_VERIFY_ESPLORA_URL: JSON.stringify({ regtest: withCredential() }) }),
      'ANCHOR_VERIFY_ESPLORA_URL',
    ],
    [
      'ANCHOR_VERIFY_ETH_RPC_URL in the provider form https://:<key>@',
      () => ({ ANCHOR_VERIFY_ETH_RPC_URL: `https://:${SECRET}@mainnet.rpc.example/v3/project` }),
      'ANCHOR_VERIFY_ETH_RPC_URL',
    ],
  ];
  for (const [name, env, variable] of cases) {
    it(`${name}: a ConfigError naming ${variable}, no answer carrying the credential`, async () => {
      const result = await bootOrAnswer(env());
      expect(result).not.toContain(SECRET);
      expect(result).toMatch(new RegExp(`ConfigError: .*${variable}.*credentials`));
    });
  }
});
