// P610: BTC_ESPLORA_URL written `https://user:password@host/…` (an explorer behind basic auth) was refused at boot
// (P487) because fetch could not send it. fetchBounded now sends the userinfo as Basic authorization to that origin
// alone (P580), and the URL is published nowhere (/health names the network and the address), so the service takes
// it: the explorer is reached with the credential in the header, and the password is in no log line or answer.
// The real service booted from main.ts, and in-process listening on a port for /ready, /health, /metrics and a
// real anchoring round through the explorer.
import { fileURLToPath } from 'node:url';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import { bootEnv, bootMain, type HostileFront, startBasicAuthFront } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bitcoinPrivateKey, bitcoinWallet } from '../../src/adapters/bitcoin.ts';
import { hashOf, OPERATOR, testApp } from '../../src/testing/app.ts';
import { type EsploraTestServer, startEsploraServer } from '../../src/testing/esplora-server.ts';

const ANCHOR_MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const USER = 'esplora-ops';
const SECRET = 'expl0rer-Basic-never-logged';
const PRIVATE_KEY = '47'.repeat(32);
const wallet = bitcoinWallet(bitcoinPrivateKey(PRIVATE_KEY, 'regtest'), 'regtest');

let esplora: EsploraTestServer;
let front: HostileFront;
let url: string;
beforeAll(async () => {
  esplora = await startEsploraServer('regtest');
  esplora.fund(wallet.address, 100_000);
  front = await startBasicAuthFront(esplora.url, USER, SECRET);
  url = front.url.replace('://', `://${USER}:${SECRET}@`);
});
afterAll(async () => {
  await front?.close();
  await esplora?.close();
});

const bitcoinEnv = () => ({
  BTC_ESPLORA_URL: url,
  BTC_PRIVATE_KEY: PRIVATE_KEY,
  BTC_NETWORK: 'regtest',
  BTC_CONFIRMATIONS: '1',
});

describe('P610: BTC_ESPLORA_URL with user:password@ reaches the explorer as Basic authorization', () => {
  it('main.ts boots and runs (not exit 1), its output without the password', async () => {
    const { code, output, stopped } = await bootMain(
      ANCHOR_MAIN,
      { ...bootEnv('creds3-esplora-'), OPERATOR_TOKEN: OPERATOR, ...bitcoinEnv() },
      { stopWhen: (text) => text.includes('"address"'), killAfterMs: 45_000 },
    );
    expect(stopped, `exit ${code}: ${output}`).toBe(true);
    expect(output).not.toContain(SECRET);
  }, 60_000);

  it('/ready 200, a bitcoin anchor broadcast through the explorer; no 401, no line or answer with the password', async () => {
    let target: StoreTarget | undefined;
    let app: FastifyInstance | undefined;
    const lines: string[] = [];
    try {
      target = await createStoreTarget('sqlite', 'creds3-esplora-basic');
      app = await testApp(
        { ...bitcoinEnv(), LOG_LEVEL: 'info', BATCH_INTERVAL_MS: '0' },
        await target.open(),
        {
          logger: { stream: { write: (line: string) => lines.push(line) } },
        },
      );
      const base = await app.listen({ host: '127.0.0.1', port: 0 });
      const ready = await fetch(`${base}/ready`);
      const answers = [await ready.text()];
      expect(ready.status, answers[0]).toBe(200);
      const posted = await fetch(`${base}/anchor`, {
        method: 'POST',
        headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
        body: JSON.stringify({ bundle_hash: hashOf('creds3-esplora'), chain: 'bitcoin' }),
      });
      answers.push(await posted.text());
      expect(posted.status, answers[1]).toBe(202);
      await app.anchorWorker.run('bitcoin', true);
      expect(esplora.broadcasts.length).toBe(1);
      for (const path of ['/health', '/metrics', `/anchor/${hashOf('creds3-esplora')}`]) {
        answers.push(await (await fetch(`${base}${path}`)).text());
      }
      expect(front.requests.length).toBeGreaterThan(1);
      for (const request of front.requests) expect(request.url).not.toContain(SECRET);
      expect(answers.join('\n')).not.toContain(SECRET);
      expect(lines.join('')).not.toContain(SECRET);
      expect(lines.join('')).not.toContain('"statusCode":401');
    } finally {
      await app?.close();
      await target?.cleanup();
    }
  });
});
