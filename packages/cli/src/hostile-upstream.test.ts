// Every URL the `proto` command reads (P162), asked of a hostile node:http server: an answer whose body never ends,
// a 64 MiB answer, a redirect to another local server, an answer that is not what was asked (HTML). The real CLI
// is spawned with the pinned Node; each case must end within a few seconds with a message that says what happened,
// the exit code the command documents, the huge answer cut before its end and the other server never asked.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { buildSignedBundle, formatVerifierKey, noteVerifierKey } from '@proto/core';
import {
  answerJson,
  dripForever,
  type FrontRequest,
  type HostileFront,
  JSON_TYPE,
  redirectTo,
  startHostileFront,
  tempDirSync,
  writeHugeAnswer,
} from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli, writePendingEthereumReceipt } from './test-support.ts';

const work = tempDirSync('cli-hostile-upstream');
const HUGE = 64 * 1024 * 1024;
/** Long enough for the CLI to start on a busy machine, far above the 1.5 s timeout of the drip cases. */
const LIMIT_MS = 20_000;

type Mode = 'drip' | 'huge' | 'redirect' | 'html';

/** The real CLI; killed (code null) if it is still running after LIMIT_MS, which the cases count as a hang. */
const proto = (args: readonly string[]): Promise<CliRun> => runCli(args, LIMIT_MS);

/** What the hostile server did: paths asked, whether the huge answer was all sent, the other server's hits. */
const seen = { paths: [] as string[], hugeCompleted: false, otherHitsBefore: 0 };
let mode: Mode = 'drip';
/** Paths answered honestly (with these bodies) whatever the mode: a case's earlier steps. */
let honest: Record<string, string> = {};
let other: HostileFront;
let hostile: HostileFront;
let url = '';

/** The hostile answer of the current mode, or an honest one for a path in `honest`. */
async function answerHostile(request: FrontRequest, response: ServerResponse): Promise<void> {
  seen.paths.push(request.url);
  const known = honest[request.path];
  if (known !== undefined) {
    response.end(known);
    return;
  }
  if (mode === 'drip') dripForever(response, { everyMs: 200 });
  else if (mode === 'huge') {
    // Chunked, no Content-Length: the cap must hold while reading, not only on a declared size.
    response.writeHead(200, JSON_TYPE);
    await writeHugeAnswer(response, HUGE, '{}');
    seen.hugeCompleted = !response.destroyed;
  } else if (mode === 'redirect') redirectTo(response, `${other.url}${request.url}`);
  else {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end('<html><body>Sign in to continue</body></html>');
  }
}

beforeAll(async () => {
  other = await startHostileFront((_request, response) => answerJson(response, 200, {}));
  hostile = await startHostileFront(answerHostile);
  url = hostile.url;
});
afterAll(async () => {
  await hostile.close();
  await other.close();
  work.remove();
});

function reset(next: Mode, answers: Record<string, string> = {}): void {
  mode = next;
  honest = answers;
  seen.paths = [];
  seen.hugeCompleted = false;
  seen.otherHitsBefore = other.hits();
}

const bundleFile = `${work.dir}/bundle.json`;
writeFileSync(bundleFile, JSON.stringify(buildSignedBundle({ tier: 'standard' }).signed_bundle));
const logKey = noteVerifierKey('log.example', 'ed25519', randomBytes(32));
if (!logKey.ok) throw new Error(logKey.error.message);
const LOG_KEY = formatVerifierKey(logKey.value);

/** What every case expects: a prompt end, no stack trace, and for the huge answer and the redirect their traces. */
function expectHandled(run: CliRun, which: Mode): void {
  expect(run.code, `killed after ${run.ms} ms: ${run.stderr}`).not.toBeNull();
  expect(run.ms).toBeLessThan(LIMIT_MS);
  expect(run.stderr).not.toMatch(/internal error|\n\s+at /);
  if (which === 'huge') expect(seen.hugeCompleted).toBe(false);
  if (which === 'redirect') expect(other.hits()).toBe(seen.otherHitsBefore);
}

/**
 * --timeout: 1.5 s for the drip, which only the timeout ends; 8 s for the others, so that reading 16 MiB on a
 * loaded machine is not cut by the timeout first (the huge answer must be cut by its size).
 */
const timeoutFor = (which: Mode): string => (which === 'drip' ? '1500' : '8000');

const REASON: Record<Mode, RegExp> = {
  drip: /did not answer within 1500 ms/,
  huge: /larger than \d+ bytes/,
  redirect: /HTTP 307 \(redirects are not followed/,
  html: /not JSON|not a (signed )?checkpoint/,
};

/** The real CLI with the mode's --timeout, held to what every case expects (expectHandled). */
async function protoAgainst(which: Mode, args: readonly string[]): Promise<CliRun> {
  const run = await proto([...args, '--timeout', timeoutFor(which)]);
  expectHandled(run, which);
  return run;
}

const verifyWithLog = (logUrl: string): string[] => [
  'verify',
  '--json',
  bundleFile,
  '--log',
  logUrl,
  '--log-key',
  LOG_KEY,
];
const proveFromTiles = (): string[] => ['log', 'prove', '--tiles', url, '--index', '0'];

/** The log_inclusion entry of `proto verify --json`'s error_details. */
function logInclusionDetail(run: CliRun): { message: string; retryable: boolean } | undefined {
  const out = JSON.parse(run.stdout) as {
    error_details: { check: string; message: string; retryable: boolean }[];
  };
  return out.error_details.find((d) => d.check === 'log_inclusion');
}

describe('proto verify --revocation-list URL (a document read from a URL): exit 2, unusable input', {
  timeout: 30_000,
}, () => {
  for (const which of ['drip', 'huge', 'redirect', 'html'] as const) {
    it(`${which}`, async () => {
      reset(which);
      const run = await protoAgainst(which, [
        'verify',
        '--json',
        bundleFile,
        '--revocation-list',
        `${url}/revocations/list`,
        '--revocation-key',
        'unused',
      ]);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(REASON[which]);
    });
  }
});

describe('proto verify --log URL --log-key K (lookup and proof): the check fails, retryable, exit 1', {
  timeout: 30_000,
}, () => {
  for (const which of ['drip', 'huge', 'redirect', 'html'] as const) {
    it(`${which} answering the lookup`, async () => {
      reset(which);
      const run = await protoAgainst(which, verifyWithLog(url));
      expect(run.code, run.stderr).toBe(1);
      const detail = logInclusionDetail(run);
      expect(detail?.retryable).toBe(true);
      expect(detail?.message).toMatch(REASON[which]);
    });
  }

  for (const which of ['drip', 'huge', 'redirect', 'html'] as const) {
    it(`${which} answering the proof after an honest lookup`, async () => {
      reset(which);
      // A front answers every lookup with entry 0 and hands the rest (GET /tlog-proof/0) to the hostile server.
      const front = await startHostileFront((request, response) =>
        request.path.startsWith('/lookup/')
          ? answerJson(response, 200, { log_index: 0 })
          : answerHostile(request, response),
      );
      try {
        const run = await protoAgainst(which, verifyWithLog(front.url));
        expect(seen.paths).toContain('/tlog-proof/0');
        expect(run.code, run.stderr).toBe(1);
        const detail = logInclusionDetail(run);
        // An HTML page where the tlog-proof should be is a malformed proof, judged by verifyTlogProof as before.
        if (which !== 'html') {
          expect(detail?.retryable).toBe(true);
          expect(detail?.message).toMatch(REASON[which]);
        }
      } finally {
        await front.close();
      }
    });
  }
});

describe('proto log prove --tiles URL (checkpoint and tiles): exit 2, unusable input', {
  timeout: 30_000,
}, () => {
  for (const which of ['drip', 'huge', 'redirect', 'html'] as const) {
    it(`${which} answering the checkpoint`, async () => {
      reset(which);
      const run = await protoAgainst(which, proveFromTiles());
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(REASON[which]);
    });
  }

  for (const which of ['drip', 'huge', 'redirect'] as const) {
    it(`${which} answering a tile after an honest checkpoint`, async () => {
      // A checkpoint of size 1 (unchecked without --key): the first tile asked is the hostile answer.
      reset(which, { '/checkpoint': `log.example\n1\n${Buffer.alloc(32).toString('base64')}\n` });
      const run = await protoAgainst(which, proveFromTiles());
      expect(seen.paths.some((path) => path.startsWith('/tile/'))).toBe(true);
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(REASON[which]);
    });
  }

  it('--timeout must be a number of milliseconds (exit 2)', async () => {
    const run = await proto([...proveFromTiles(), '--timeout', 'soon']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--timeout/);
  });
});

describe('proto receipt verify --rpc URL (through @proto/clients, P154): skipped, retryable, exit 1', {
  timeout: 30_000,
}, () => {
  const { receiptFile, bundleHash } = writePendingEthereumReceipt(work.dir);

  for (const which of ['drip', 'huge', 'redirect', 'html'] as const) {
    it(`${which} answering the JSON-RPC`, async () => {
      reset(which);
      const run = await protoAgainst(which, [
        'receipt',
        'verify',
        receiptFile,
        '--bundle-hash',
        bundleHash,
        '--rpc',
        url,
      ]);
      expect(run.code, run.stderr).toBe(1);
      const out = JSON.parse(run.stdout) as { status: string; retryable: boolean; message: string };
      expect(out).toMatchObject({ status: 'skipped', retryable: true });
      expect(out.message).toMatch(REASON[which]);
    });
  }
});

describe('proto anchor deploy-contract --rpc URL (viem): exit 3, the deployment failed', {
  timeout: 30_000,
}, () => {
  // viem already times each request, body included (30 s, not waited for here) and caps its answer at 10 MiB.
  for (const which of ['huge', 'redirect', 'html'] as const) {
    it(`${which} answering eth_chainId`, async () => {
      reset(which);
      const run = await proto(['anchor', 'deploy-contract', '--rpc', url, '--key', 'ab'.repeat(32)]);
      expectHandled(run, which);
      expect(run.code, run.stderr).toBe(3);
      expect(run.stderr).toMatch(/^proto anchor: the deployment failed: /);
      // One line, without viem's request dump (a later call's body is the signed transaction).
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      if (which === 'redirect') expect(run.stderr).toMatch(REASON.redirect);
    });
  }
});
