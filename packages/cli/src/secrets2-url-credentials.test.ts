// P540: a URL given to `proto` with a credential in it (`user:password@`, the providers' `https://:<key>@`, a
// `?token=` query) must not come back in proto's own words. fetch refuses a URL with userinfo and its refusal
// repeats the whole URL; @proto/clients' `request` and the CLI's fetchAnswer put that text in the verdict's
// message and warnings (stdout, --json), in the one-line error (stderr), and fetchAnswer named the URL as given.
// Such output ends up in CI logs and pasted bug reports. The real CLI process, against a local server that refuses
// every request (HTTP 404) and against a port where nothing listens.
import { answerJson, type HostileFront, startHostileFront, tempDirSync } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleWithPendingReceipts, type CliRun, runCli } from './test-support.ts';

const SECRET = 'pw-Zq81-never-printed';
const work = tempDirSync('cli-secrets2-url-credentials');
let refusing: HostileFront;
/** A port where nothing listens: a server started, then closed. */
let down = '';

beforeAll(async () => {
  refusing = await startHostileFront((_request, response) => answerJson(response, 404, { error: 'no' }));
  const closed = await startHostileFront((_request, response) => answerJson(response, 404, {}));
  down = closed.url;
  await closed.close();
});
afterAll(async () => {
  await refusing.close();
  work.remove();
});

// A bundle with pending receipts for it (their paths hold offline), so that only the chain is left to ask.
const { built, bundleFile, evmReceipt, btcReceipt } = bundleWithPendingReceipts(work.dir);

/** `base` (`http://127.0.0.1:<port>`) with the credential put where each form puts it. */
const FORMS: Record<string, (base: string, path: string) => string> = {
  'user:password@': (base, path) => base.replace('://', `://ops:${SECRET}@`) + path,
  'provider :<key>@': (base, path) => base.replace('://', `://:${SECRET}@`) + path,
};

function expectNoSecret(run: CliRun): void {
  expect(run.code, run.stderr).not.toBeNull();
  expect(`${run.stdout}\n${run.stderr}`).not.toContain(SECRET);
}

describe('P540: proto never repeats a credential of a URL it was given', { timeout: 120_000 }, () => {
  for (const [form, withSecret] of Object.entries(FORMS)) {
    it(`${form}: --rpc and --esplora, through request(): skipped, retryable, with no credential`, async () => {
      for (const base of [down, refusing.url]) {
        const evm = await runCli([
          'verify',
          '--json',
          bundleFile,
          '--receipt',
          evmReceipt,
          '--rpc',
          withSecret(base, '/'),
        ]);
        expectNoSecret(evm);
        expect(JSON.parse(evm.stdout)).toMatchObject({ checks: { anchor: 'skipped' } });
        // P580: the refusing server is now asked (the credential sent as Basic); only the closed port is unreachable.
        if (base === down) expect(evm.stdout).toMatch(/unreachable/);

        const btc = await runCli([
          'receipt',
          'verify',
          btcReceipt,
          '--bundle-hash',
          built.bundleHash,
          '--esplora',
          withSecret(base, '/api'),
        ]);
        expectNoSecret(btc);
        expect(JSON.parse(btc.stdout)).toMatchObject({ status: 'skipped', retryable: true });
        if (base === down) expect(JSON.parse(btc.stdout).message).toMatch(/unreachable/);
      }
    });

    it(`${form}: --receipt, --revocation-list and --tiles URLs, through fetchAnswer: exit 2, no credential`, async () => {
      for (const base of [down, refusing.url]) {
        const runs = [
          await runCli(['verify', '--json', bundleFile, '--receipt', withSecret(base, '/r.json')]),
          await runCli([
            'verify',
            bundleFile,
            '--revocation-list',
            withSecret(base, '/list'),
            '--revocation-key',
            'k',
          ]),
          await runCli(['log', 'prove', '--tiles', withSecret(base, '/tiles'), '--index', '0']),
        ];
        for (const run of runs) {
          expectNoSecret(run);
          expect(run.code, run.stderr).toBe(2);
          expect(run.stderr).toMatch(/^proto (verify|log): http:\/\/(\[redacted\]@)?127\.0\.0\.1:\d+\//);
        }
      }
    });

    it(`${form}: anchor deploy-contract --rpc (viem): exit 3, no credential`, async () => {
      const run = await runCli([
        'anchor',
        'deploy-contract',
        '--rpc',
        withSecret(down, '/'),
        '--key',
        'ab'.repeat(32),
      ]);
      expectNoSecret(run);
      expect(run.code, run.stderr).toBe(3);
    });
  }

  it('a ?token= query of a --receipt URL is not repeated in the refusal', async () => {
    const run = await runCli([
      'verify',
      '--json',
      bundleFile,
      '--receipt',
      `${refusing.url}/r.json?token=${SECRET}`,
    ]);
    expectNoSecret(run);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/r\.json: HTTP 404/);
  });
});
