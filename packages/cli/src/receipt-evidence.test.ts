// `proto verify --receipt` with a receipt the real anchor service made in the real transparency log (both in-process),
// checked against the log the user names and its checkpoint key: pass for this bundle, fail for another. D19.
import { writeFileSync } from 'node:fs';
import { getReceipt, type LogTestServer, postAnchor, startLogServer, testApp } from '@proto/anchor/testing';
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
