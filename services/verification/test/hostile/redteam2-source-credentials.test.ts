// An operator whose Esplora explorer or EVM node needs a credential writes it in the URL (`https://:<key>@…`, the
// form RPC providers document). fetch refuses a URL with userinfo and its refusal repeats the whole URL, which the
// anchor check put into its `skipped` message: every caller who sent a genuine bundle with a receipt read the
// operator's credential in the /verify answer. Brief redteam2; P529 refused such a URL at boot.
// P610 (brief creds3): the URL is published nowhere (not in /health, the capabilities document or an answer), and
// fetchBounded sends its userinfo as Basic authorization to that origin alone (P580), so the service takes it. The
// real main.ts in front of an explorer that answers only that credential: the receipt is checked, and the password
// is in no line the process wrote and no answer it gave.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  bitcoinPrivateKey,
  bitcoinWallet,
  type EsploraTestServer,
  postAnchor,
  startEsploraServer,
  testApp,
} from '@proto/anchor/testing';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import { type HostileFront, startBasicAuthFront } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type SpawnedService, sampleBundle, spawnService } from '../../src/test-support.ts';

const USER = 'ops';
const SECRET = 'expl0rer-s3cret';
const wallet = bitcoinWallet(bitcoinPrivateKey('46'.repeat(32), 'regtest'), 'regtest');
let esplora: EsploraTestServer;
let front: HostileFront;
let target: StoreTarget;
let anchor: FastifyInstance;
const anchored = sampleBundle({});
let receipt: Record<string, unknown>;
const children: SpawnedService[] = [];

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
  front = await startBasicAuthFront(esplora.url, USER, SECRET);
});

afterAll(async () => {
  for (const child of children) child.child.kill('SIGKILL');
  await front?.close();
  await anchor?.close();
  await target?.cleanup();
  await esplora?.close();
});

/** The real service with `env`: all it printed and every answer, once /verify has judged the genuine receipt. */
async function bootAndVerify(env: Record<string, string>): Promise<{ verdict: unknown; printed: string }> {
  const service = spawnService({
    LOG_LEVEL: 'info',
    PORT: '0',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'creds3-source-')),
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    ...env,
  });
  children.push(service);
  const url = await service.listening(80_000);
  const { json } = await postVerify(url, { signed_bundle: anchored.signed_bundle, anchor_receipt: receipt });
  const answers = [JSON.stringify(json)];
  for (const path of [
    '/health',
    '/ready',
    '/metrics',
    '/.well-known/proto-capabilities.json',
    '/console/config.json',
  ])
    answers.push(await (await fetch(`${url}${path}`)).text());
  return { verdict: json, printed: `${service.output()}\n${answers.join('\n')}` };
}

describe('P610: an Esplora URL with user:password@ is asked with it as Basic, never repeated', () => {
  const withCredential = () => front.url.replace('http://', `http://${USER}:${SECRET}@`);
  const cases: [string, () => Record<string, string>][] = [
    ['ANCHOR_VERIFY_ESPLORA_URL', () => ({ ANCHOR_VERIFY_ESPLORA_URL: withCredential() })],
    [
      'ANCHOR_VERIFY_ESPLORA_URL per network (JSON)',
      () => ({ ANCHOR_VERIFY_ESPLORA_URL: JSON.stringify({ regtest: withCredential() }) }),
    ],
  ];
  for (const [name, env] of cases) {
    it(`${name}: the receipt is checked (anchor pass), the password in no output or answer`, async () => {
      const before = front.requests.length;
      const { verdict, printed } = await bootAndVerify(env());
      expect(verdict, printed).toMatchObject({ verified: true, checks: { anchor: 'pass' } });
      const asked = front.requests.slice(before);
      expect(asked.length).toBeGreaterThan(0);
      for (const request of asked) expect(request.url).not.toContain(SECRET);
      expect(printed).not.toContain(SECRET);
    }, 120_000);
  }

  it('ANCHOR_VERIFY_ETH_RPC_URL in the provider form https://:<key>@ boots; the key in no output or answer', async () => {
    const { printed } = await bootAndVerify({
      ANCHOR_VERIFY_ETH_RPC_URL: `http://:${SECRET}@127.0.0.1:9/v3/project`,
    });
    expect(printed).toContain('listening on');
    expect(printed).not.toContain(SECRET);
  }, 120_000);
});
