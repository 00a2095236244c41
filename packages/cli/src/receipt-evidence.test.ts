// `proto verify --receipt` with a receipt the real anchor service made in the real transparency log (both in-process),
// checked against the log the user names and its checkpoint key: pass for this bundle, fail for another. D19.
// And Bitcoin receipts (Esplora test server) anchoring a SHA3-256 secondary hash: the bundle's own passes, a lying
// one (valid path, on chain, not this bundle's) fails (P62).
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import {
  bitcoinPrivateKey,
  bitcoinWallet,
  getReceipt,
  type LogTestServer,
  OPERATOR,
  postAnchor,
  startEsploraServer,
  startLogServer,
  testApp,
} from '@proto/anchor/testing';
import { buildSignedBundle, computeBundleHash } from '@proto/core';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import { tempDirSync } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from './run-in-process.ts';

const LOG_TOKEN = 'log-append-token-for-the-cli-test';
const work = tempDirSync('cli-receipt');
let log: LogTestServer;
let target: StoreTarget;
let anchor: Awaited<ReturnType<typeof testApp>>;

const proto = (args: readonly string[]) => runInProcess(args);

function bundleFile(name: string): { file: string; hash: string } {
  const signed = buildSignedBundle({ tier: 'standard' }).signed_bundle;
  const hash = computeBundleHash(signed);
  if (!hash.ok) throw new Error(hash.error.message);
  const file = `${work.dir}/${name}.json`;
  writeFileSync(file, JSON.stringify(signed));
  return { file, hash: hash.value };
}

beforeAll(async () => {
  log = await startLogServer({ token: LOG_TOKEN });
  target = await createStoreTarget('sqlite', 'cli-receipt');
  anchor = await testApp({ TL_URL: log.url, TL_TOKEN: LOG_TOKEN }, await target.open());
});
afterAll(async () => {
  await anchor?.close();
  await target?.cleanup();
  await log?.close();
  work.remove();
});

describe('proto verify with an anchor receipt', () => {
  it('passes the anchor check for the anchored bundle and fails it for another bundle', async () => {
    const anchored = bundleFile('anchored');
    const other = bundleFile('other');
    expect((await postAnchor(anchor, anchored.hash, 'transparency-log')).statusCode).toBe(202);
    await anchor.anchorWorker.run('transparency-log', true);
    await log.checkpoint();
    const receiptFile = `${work.dir}/receipt.json`;
    writeFileSync(receiptFile, JSON.stringify(await getReceipt(anchor, anchored.hash)));
    const sources = ['--receipt', receiptFile, '--log', log.url, '--log-key', log.verifierKey];

    const pass = await proto(['verify', '--json', ...sources, anchored.file]);
    expect(pass.code, pass.stdout + pass.stderr).toBe(0);
    expect(JSON.parse(pass.stdout)).toMatchObject({ verified: true, checks: { anchor: 'pass' } });

    const wrong = await proto(['verify', '--json', ...sources, other.file]);
    expect(wrong.code).toBe(1);
    const json = JSON.parse(wrong.stdout) as { verified: boolean; checks: Record<string, string> };
    expect(json).toMatchObject({ verified: false, checks: { anchor: 'fail' } });
  });
});

describe('proto verify with a receipt anchoring a SHA3-256 secondary hash (P62)', () => {
  it("passes the bundle's own secondary hash and fails a lying one with E202", async () => {
    const esplora = await startEsploraServer('regtest');
    const built = buildSignedBundle({ tier: 'standard' });
    const file = `${work.dir}/sha3-bundle.json`;
    writeFileSync(file, JSON.stringify(built.signed_bundle));
    const lyingSecondary = `sha3-256:${createHash('sha3-256').update('another bundle').digest('hex')}`;
    const receiptOf = async (keyHex: string, secondary: string, name: string) => {
      esplora.fund(bitcoinWallet(bitcoinPrivateKey(keyHex, 'regtest'), 'regtest').address, 100_000);
      const btcTarget = await createStoreTarget('sqlite', `cli-receipt-${name}`);
      const app = await testApp(
        {
          BTC_ESPLORA_URL: esplora.url,
          BTC_PRIVATE_KEY: keyHex,
          BTC_NETWORK: 'regtest',
          BATCH_INTERVAL_MS: '0',
        },
        await btcTarget.open(),
      );
      try {
        const posted = await app.inject({
          method: 'POST',
          url: '/anchor',
          headers: { authorization: `Bearer ${OPERATOR}` },
          payload: { bundle_hash: built.bundleHash, bundle_hash_secondary: secondary, chain: 'bitcoin' },
        });
        expect(posted.statusCode, posted.body).toBe(202);
        await app.anchorWorker.run('bitcoin', true);
        esplora.mine(1);
        await app.anchorWorker.run('bitcoin', true);
        const receiptFile = `${work.dir}/${name}.json`;
        writeFileSync(receiptFile, JSON.stringify(await getReceipt(app, built.bundleHash)));
        return receiptFile;
      } finally {
        await app.close();
        await btcTarget.cleanup();
      }
    };
    try {
      const lying = await receiptOf('48'.repeat(32), lyingSecondary, 'lying-receipt');
      const honest = await receiptOf('49'.repeat(32), built.bundleHashSecondary, 'honest-receipt');
      const run = (receipt: string) =>
        proto(['verify', '--json', '--receipt', receipt, '--esplora', esplora.url, file]);

      const pass = await run(honest);
      expect(pass.code, pass.stdout + pass.stderr).toBe(0);
      expect(JSON.parse(pass.stdout)).toMatchObject({ verified: true, checks: { anchor: 'pass' } });

      const refused = await run(lying);
      expect(refused.code, refused.stdout + refused.stderr).toBe(1);
      expect(JSON.parse(refused.stdout)).toMatchObject({
        verified: false,
        checks: { anchor: 'fail' },
        error_details: [
          expect.objectContaining({
            code: 'PROTO-E202',
            message: expect.stringContaining(`not the bundle's ${built.bundleHashSecondary}`),
          }),
        ],
      });
    } finally {
      await esplora.close();
    }
  });
});
