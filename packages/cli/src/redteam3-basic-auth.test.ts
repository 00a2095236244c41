// P580: a URL given to `proto` with userinfo (`https://user:password@host/…`, or the providers' `https://:<key>@host/…`)
// is asked with that credential as an HTTP Basic Authorization header, sent to that origin only (a redirect is never
// followed, so it cannot carry the header elsewhere) and never printed. Before, fetch refused every such URL: a list,
// receipt, log or node behind basic auth could not be used at all. The real CLI process against local servers that
// answer only the right credential.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { formatVerifierKey, noteVerifierKey } from '@proto/core';
import { answerJson, type HostileFront, startHostileFront, tempDirSync } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from './run-in-process.ts';
import { bundleWithPendingReceipts, type CliRun, runCli } from './test-support.ts';

const USER = 'ops';
const SECRET = 'pw-8Rt3-never-printed';
const work = tempDirSync('cli-redteam3-basic-auth');
const { built, bundleFile, evmReceipt, btcReceipt } = bundleWithPendingReceipts(work.dir);
const receiptText = readFileSync(evmReceipt, 'utf8');

const logKey = noteVerifierKey('log.example', 'ed25519', randomBytes(32));
if (!logKey.ok) throw new Error(logKey.error.message);

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
const ACCEPTED = new Set([basic(USER, SECRET), basic('', SECRET)]);

/** Answers `/r.json` with the receipt to a right credential, 401 to anything else; the log's paths answer 500. */
let guarded: HostileFront;
/** Where `guarded` redirects `/moved`: it must never be asked. */
let elsewhere: HostileFront;

beforeAll(async () => {
  elsewhere = await startHostileFront((_request, res) => answerJson(res, 200, {}));
  guarded = await startHostileFront((request, res) => {
    if (!ACCEPTED.has(String(request.headers.authorization))) return answerJson(res, 401, { error: 'auth' });
    if (request.path === '/moved') return res.writeHead(302, { location: `${elsewhere.url}/r.json` }).end();
    if (request.path === '/r.json') return answerJson(res, 200, receiptText);
    return answerJson(res, 500, { error: 'down' });
  });
});
afterAll(async () => {
  await guarded.close();
  await elsewhere.close();
  work.remove();
});

const withUser = (path: string) => guarded.url.replace('://', `://${USER}:${SECRET}@`) + path;
const withKey = (path: string) => guarded.url.replace('://', `://:${SECRET}@`) + path;

function expectNoSecret(run: { stdout: string; stderr: string }): void {
  expect(`${run.stdout}\n${run.stderr}`).not.toContain(SECRET);
}

/** The Authorization headers `guarded` received since `from`. */
const authorizationsSince = (from: number) =>
  guarded.requests.slice(from).map((request) => request.headers.authorization);

describe('P580: proto sends a URL’s userinfo as HTTP Basic, to that origin only, and never prints it', {
  timeout: 120_000,
}, () => {
  it('--receipt behind basic auth (user:password@ and :<key>@) is fetched and used', async () => {
    for (const url of [withUser('/r.json'), withKey('/r.json')]) {
      const from = guarded.hits();
      const run: CliRun = await runCli(['verify', '--json', bundleFile, '--receipt', url]);
      expectNoSecret(run);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ verified: true, checks: { anchor: 'skipped' } });
      expect(authorizationsSince(from).length).toBe(1);
      expect(ACCEPTED.has(String(authorizationsSince(from)[0]))).toBe(true);
    }
  });

  it('--rpc and --esplora in both forms reach the node with the credential', async () => {
    for (const withCredential of [withUser, withKey]) {
      const from = guarded.hits();
      const rpc = await runCli([
        'verify',
        '--json',
        bundleFile,
        '--receipt',
        evmReceipt,
        '--rpc',
        withCredential('/'),
      ]);
      const esplora = await runCli([
        'receipt',
        'verify',
        btcReceipt,
        '--bundle-hash',
        built.bundleHash,
        '--esplora',
        withCredential('/api'),
      ]);
      expectNoSecret(rpc);
      expectNoSecret(esplora);
      const seen = authorizationsSince(from);
      expect(seen.length).toBeGreaterThan(1);
      for (const header of seen) expect(ACCEPTED.has(String(header))).toBe(true);
    }
  });

  it('a redirect to another origin is not followed: the credential goes nowhere else', async () => {
    const before = elsewhere.hits();
    const run = await runCli(['verify', '--json', bundleFile, '--receipt', withUser('/moved')]);
    expectNoSecret(run);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/redirects are not followed/);
    expect(elsewhere.hits()).toBe(before);
  });

  it('--log behind basic auth: its failures name the log without the credential', async () => {
    const from = guarded.hits();
    const run = await runCli([
      'verify',
      bundleFile,
      '--log',
      withUser('/log'),
      '--log-key',
      formatVerifierKey(logKey.value),
    ]);
    expectNoSecret(run);
    expect(authorizationsSince(from)).toContain(basic(USER, SECRET));
  });

  it('anchor deploy-contract: the progress line on a terminal names the node without the credential', async () => {
    const run = await runInProcess(
      ['anchor', 'deploy-contract', '--rpc', withKey('/'), '--key', 'ab'.repeat(32), '--timeout', '2000'],
      { terminal: true },
    );
    expectNoSecret(run);
    expect(run.stderr).toMatch(/deploying to http:\/\/127\.0\.0\.1:\d+\//);
  });
});
