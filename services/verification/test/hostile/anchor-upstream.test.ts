// The operator's EVM JSON-RPC, seen as a faulty or hostile upstream (P154). POST /verify with a real EVM receipt
// (made by the real anchor service on a local chain) against the real verification service, whose
// ANCHOR_VERIFY_ETH_RPC_URL is a local server that forwards to the chain, or misbehaves as each test asks: an
// answer that never ends, a huge or lying answer, a redirect elsewhere, an error or an answer to another request.
// Whatever it does, /verify answers in bounded time with the anchor check `skipped` (PROTO-E701, retryable).
import type { ServerResponse } from 'node:http';
import { confirmedEvmReceipt, type LocalChain, startLocalChain } from '@proto/anchor/testing';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import {
  answerJson,
  dripForever,
  type FrontRequest,
  forwardTo,
  type HostileFront,
  lieAboutLength,
  redirectTo,
  startHostileFront,
  writeHugeAnswer,
} from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startApp } from '../../src/test-support.ts';

type Mode =
  | 'forward'
  | 'silent'
  | 'drip'
  | 'huge'
  | 'length-lie'
  | 'redirect'
  | 'rpc-error'
  | 'wrong-id'
  | 'not-json'
  | 'null';

const TIMEOUT_MS = 1500;
const MAX_BYTES = 1024 * 1024;
/** The padding of a huge answer: whitespace, so the answer is still valid JSON once read in full. */
const HUGE_PADDING = 32 * 1024 * 1024;

let chain: LocalChain;
let target: StoreTarget;
let anchor: FastifyInstance;
let rpc: HostileFront;
let mode: Mode = 'forward';
/** Where a redirect leads: another host the operator never configured (here it forwards to the chain too). */
let elsewhere: HostileFront;
/** Responses of the hostile server that were cut before all their bytes were delivered. */
let cutShort = 0;
let verifier: RunningApp;
const sample = sampleBundle({});
let receipt: Record<string, unknown>;

const forward = async (request: FrontRequest) => await (await forwardTo(chain.url, request)).text();

async function hostile(request: FrontRequest, res: ServerResponse): Promise<void> {
  switch (mode) {
    case 'forward':
      return answerJson(res, 200, await forward(request));
    case 'silent':
      return; // never answers, never closes
    case 'drip':
      // Headers at once, then one byte of a never-ending JSON answer every 100 ms.
      return dripForever(res, { first: '{"jsonrpc":"2.0","id":1,"result":' });
    case 'huge':
      res.writeHead(200, { 'content-type': 'application/json' });
      return await writeHugeAnswer(res, HUGE_PADDING, await forward(request), () => {
        cutShort += 1;
      });
    case 'length-lie':
      // Declares half a gigabyte, sends a few bytes and then nothing.
      return lieAboutLength(res, { first: '{"jsonrpc":"2.0",' });
    case 'redirect':
      return redirectTo(res, `${elsewhere.url}/rpc`);
    case 'rpc-error':
      return answerJson(res, 200, {
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32000, message: 'header not found' },
      });
    case 'wrong-id': {
      // The chain's true answer, but labelled as the answer to another request.
      const answer = JSON.parse(await forward(request)) as Record<string, unknown>;
      return answerJson(res, 200, { ...answer, id: 77 });
    }
    case 'not-json':
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>502 Bad Gateway</html>');
      return;
    case 'null':
      return answerJson(res, 200, 'null');
  }
}

beforeAll(async () => {
  [chain, target] = await Promise.all([
    startLocalChain(),
    createStoreTarget('sqlite', 'verification-upstream'),
  ]);
  ({ anchor, receipt } = await confirmedEvmReceipt(chain, await target.open(), sample.bundleHash));

  rpc = await startHostileFront(hostile);
  elsewhere = await startHostileFront(async (request, res) => answerJson(res, 200, await forward(request)));
  verifier = await startApp({
    VERIFY_WORKERS: '1',
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    ANCHOR_VERIFY_ETH_RPC_URL: JSON.stringify({ ethereum: rpc.url }),
    ANCHOR_VERIFY_TIMEOUT_MS: String(TIMEOUT_MS),
    ANCHOR_VERIFY_MAX_RESPONSE_BYTES: String(MAX_BYTES),
    // Every request asks the upstream again.
    ANCHOR_VERIFY_CACHE_MAX_ENTRIES: '0',
  });
}, 120_000);

afterAll(async () => {
  await verifier?.close();
  await anchor?.close();
  await target?.cleanup();
  await chain?.close();
  await Promise.all([rpc?.close(), elsewhere?.close()]);
});

beforeEach(() => {
  mode = 'forward';
});

/** POST /verify with the genuine bundle and receipt; the anchor check's outcome and the time it took. */
async function verifyWithReceipt() {
  const started = performance.now();
  const { status, json } = await postVerify(verifier.url, {
    signed_bundle: sample.signed_bundle,
    anchor_receipt: receipt,
  });
  return { status, json, ms: performance.now() - started };
}

async function expectSkipped(pattern: RegExp): Promise<number> {
  const { status, json, ms } = await verifyWithReceipt();
  expect(status).toBe(200);
  expect(json, JSON.stringify(json)).toMatchObject({ verified: true, checks: { anchor: 'skipped' } });
  expect(json['warnings']).toEqual(
    expect.arrayContaining([expect.stringMatching(/^anchor_receipt not checked \[PROTO-E701, retryable\]/)]),
  );
  expect(String(json['warnings']), String(json['warnings'])).toMatch(pattern);
  return ms;
}

describe('P154: a hostile EVM JSON-RPC cannot hang, flood, redirect or confuse the anchor check', () => {
  it('through an honest upstream the receipt passes (the fixture is real)', async () => {
    const { json } = await verifyWithReceipt();
    expect(json, JSON.stringify(json)).toMatchObject({ verified: true, checks: { anchor: 'pass' } });
  });

  it('an upstream that never answers: skipped after ANCHOR_VERIFY_TIMEOUT_MS', async () => {
    mode = 'silent';
    const ms = await expectSkipped(/unreachable/);
    expect(ms).toBeLessThan(TIMEOUT_MS + 5000);
  });

  it('headers, then a byte every 100 ms for ever: the timeout covers the body too', async () => {
    mode = 'drip';
    const ms = await expectSkipped(/aborted|timeout|timed out/i);
    expect(ms).toBeLessThan(TIMEOUT_MS + 5000);
  });

  it('an answer of 32 MiB is cut at ANCHOR_VERIFY_MAX_RESPONSE_BYTES, not buffered', async () => {
    mode = 'huge';
    const before = cutShort;
    await expectSkipped(/larger than 1048576 bytes/);
    // The verifier stopped reading: the server could not deliver its answer in full.
    await expect.poll(() => cutShort - before, { timeout: 5000 }).toBeGreaterThan(0);
  });

  it('a Content-Length of 500 MB is refused before any byte of the body is waited for', async () => {
    mode = 'length-lie';
    await expectSkipped(/declares 524288000 bytes/);
  });

  it('a redirect to another host is not followed (that host is never asked)', async () => {
    mode = 'redirect';
    const before = elsewhere.hits();
    await expectSkipped(/HTTP 307.*redirects are not followed/);
    expect(elsewhere.hits() - before).toBe(0);
  });

  it('a JSON-RPC error object: skipped, its message shown', async () => {
    mode = 'rpc-error';
    await expectSkipped(/header not found/);
  });

  it('an answer whose id is not the request’s is not taken for its answer', async () => {
    mode = 'wrong-id';
    await expectSkipped(/id 77.*not the request's/);
  });

  it('an HTML page instead of JSON: skipped', async () => {
    mode = 'not-json';
    await expectSkipped(/not JSON/);
  });

  it('a JSON null instead of a JSON-RPC answer: skipped', async () => {
    mode = 'null';
    await expectSkipped(/not a JSON-RPC answer/);
  });

  it('/metrics counts each look-up by receipt kind and outcome: the unavailable upstream is visible', async () => {
    const text = await (await fetch(`${verifier.url}/metrics`)).text();
    const line = text
      .split('\n')
      .find((l) =>
        l.startsWith('proto_anchor_verify_lookups_total{kind="evm",status="skipped",code="PROTO-E701"}'),
      );
    // One per hostile case above (the cache is off): silence, drip, huge, length, redirect, error, id, HTML, null.
    expect(Number(line?.slice(line.lastIndexOf(' ') + 1))).toBeGreaterThanOrEqual(9);
    expect(text).toMatch(/proto_anchor_verify_lookups_total\{kind="evm",status="pass",code="none"\} [1-9]/);
  });

  it('after all that, an honest upstream passes the receipt again (nothing was cached or poisoned)', async () => {
    const { json } = await verifyWithReceipt();
    expect(json, JSON.stringify(json)).toMatchObject({ verified: true, checks: { anchor: 'pass' } });
  });
});
