// `proto verify --receipt` and `proto receipt verify` when the log answers in the wrong shape (P161). A real receipt
// from the real anchor service in the real transparency log, whose URL is a local node:http front that forwards to
// the log or rewrites its proof answer. An answer without {tree_size, proof[], root} is the source unavailable:
// `proto verify` keeps the bundle verified with the anchor `skipped` and a retryable PROTO-E701 warning (exit 0),
// `proto receipt verify` says not verified, skipped, retryable (exit 1). A well-formed proof that does not verify
// still fails the bundle (exit 1).
import { writeFileSync } from 'node:fs';
import { getReceipt, type LogTestServer, postAnchor, startLogServer, testApp } from '@proto/anchor/testing';
import { buildSignedBundle, computeBundleHash } from '@proto/core';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import { answerJson, type HostileFront, startHostileFront, tempDirSync } from '@proto/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runInProcess } from './run-in-process.ts';

const LOG_TOKEN = 'log-append-token-for-the-malformed-test';
const work = tempDirSync('cli-receipt-malformed');
let log: LogTestServer;
let target: StoreTarget;
let anchor: Awaited<ReturnType<typeof testApp>>;
let front: HostileFront;
let frontUrl: string;
/** Rewrites the log's GET /proof answer; undefined: forwarded as it is. */
let rewriteProof: ((answer: Record<string, unknown>) => unknown) | undefined;
/** Answers the log's GET /proof with this HTTP status (and an error body) instead of forwarding. */
let proofStatus: number | undefined;
let bundle: string;
let receipt: Record<string, unknown>;
let receiptFile: string;
let bundleHash: string;

const proto = (args: readonly string[]) => runInProcess(args);

beforeAll(async () => {
  log = await startLogServer({ token: LOG_TOKEN });
  front = await startHostileFront(async (request, res) => {
    const isProof = request.path.startsWith('/proof/');
    if (proofStatus !== undefined && isProof) {
      answerJson(res, proofStatus, { error: 'overloaded' });
      return;
    }
    const upstream = await fetch(`${log.url}${request.url}`, {
      method: request.method,
      headers: {
        'content-type': request.headers['content-type'] ?? 'application/json',
        ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}),
      },
      ...(request.body.length > 0 ? { body: request.body } : {}),
    });
    let text = await upstream.text();
    if (rewriteProof !== undefined && isProof && upstream.status === 200) {
      text = JSON.stringify(rewriteProof(JSON.parse(text) as Record<string, unknown>));
    }
    answerJson(res, upstream.status, text);
  });
  frontUrl = front.url;
  target = await createStoreTarget('sqlite', 'cli-receipt-malformed');
  // The anchor service writes through the front: the receipt's log_url is the front's.
  anchor = await testApp({ TL_URL: frontUrl, TL_TOKEN: LOG_TOKEN }, await target.open());

  const signed = buildSignedBundle({ tier: 'standard' }).signed_bundle;
  const hash = computeBundleHash(signed);
  if (!hash.ok) throw new Error(hash.error.message);
  bundleHash = hash.value;
  bundle = `${work.dir}/bundle.json`;
  writeFileSync(bundle, JSON.stringify(signed));
  expect((await postAnchor(anchor, bundleHash, 'transparency-log')).statusCode).toBe(202);
  // A second entry: with a tree of one leaf, an empty proof is the right one and nothing could go wrong.
  expect((await postAnchor(anchor, `sha256:${'5a'.repeat(32)}`, 'transparency-log')).statusCode).toBe(202);
  await anchor.anchorWorker.run('transparency-log', true);
  await log.checkpoint();
  receipt = (await getReceipt(anchor, bundleHash)) as Record<string, unknown>;
  expect(receipt).toMatchObject({ log_url: frontUrl });
  receiptFile = `${work.dir}/receipt.json`;
  writeFileSync(receiptFile, JSON.stringify(receipt));
});

afterAll(async () => {
  await anchor?.close();
  await target?.cleanup();
  await log?.close();
  await front?.close();
  work.remove();
});

beforeEach(() => {
  rewriteProof = undefined;
  proofStatus = undefined;
});

// Without --log-key the log's proof endpoint is asked (and trusted, with a warning).
const verifyArgs = () => ['verify', '--json', '--receipt', receiptFile, '--log', frontUrl, bundle];
const receiptArgs = () => ['receipt', 'verify', receiptFile, '--bundle-hash', bundleHash, '--log', frontUrl];

describe('P161: the CLI reads a malformed log answer as the log unavailable', () => {
  it('through an honest log: verified, anchor pass (the fixture is real)', async () => {
    const run = await proto(verifyArgs());
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ verified: true, checks: { anchor: 'pass' } });
  });

  it('a proof answer without proof[]: proto verify exit 0, anchor skipped, E701 retryable warning', async () => {
    rewriteProof = ({ proof: _dropped, ...rest }) => rest;
    const run = await proto(verifyArgs());
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const json = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(json, run.stdout).toMatchObject({ verified: true, checks: { anchor: 'skipped' } });
    expect(String(json['warnings'])).toMatch(/without \{tree_size, proof\[\], root\}/);

    const receipt = await proto(receiptArgs());
    expect(receipt.code, receipt.stdout + receipt.stderr).toBe(1);
    expect(JSON.parse(receipt.stdout)).toMatchObject({
      verified: false,
      status: 'skipped',
      code: 'PROTO-E701',
      retryable: true,
    });
  });

  it('a well-formed proof that does not lead to the root: proto verify exit 1, anchor fail E202', async () => {
    rewriteProof = (answer) => ({ ...answer, root: 'ee'.repeat(32) });
    const run = await proto(verifyArgs());
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({
      verified: false,
      checks: { anchor: 'fail' },
      error_details: [expect.objectContaining({ code: 'PROTO-E202', retryable: false })],
    });
  });

  it('with the log key, a bare receipt whose proof answer is an HTTP 403 or has no proof[]: skipped, not an empty proof', async () => {
    // Only the log and the index: the entry is proven against the signed checkpoint, whose proof is asked.
    const bare = `${work.dir}/bare-receipt.json`;
    writeFileSync(bare, JSON.stringify({ log_url: receipt['log_url'], log_index: receipt['log_index'] }));
    const keyed = [
      'receipt',
      'verify',
      bare,
      '--bundle-hash',
      bundleHash,
      '--log',
      frontUrl,
      '--log-key',
      log.verifierKey,
    ];
    const honest = await proto(keyed);
    expect(honest.code, honest.stdout + honest.stderr).toBe(0);
    const seen: Record<string, unknown> = {};
    proofStatus = 403;
    seen['forbidden'] = JSON.parse((await proto(keyed)).stdout);
    proofStatus = undefined;
    rewriteProof = ({ proof: _dropped, ...rest }) => rest;
    seen['no-proof'] = JSON.parse((await proto(keyed)).stdout);
    const unavailable = (pattern: RegExp) => ({
      verified: false,
      status: 'skipped',
      code: 'PROTO-E701',
      retryable: true,
      message: expect.stringMatching(pattern),
    });
    expect(seen, JSON.stringify(seen)).toMatchObject({
      forbidden: unavailable(/HTTP 403/),
      'no-proof': unavailable(/without a proof\[\]/),
    });
  });
});
