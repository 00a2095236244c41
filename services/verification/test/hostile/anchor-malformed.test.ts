// A faulty EVM JSON-RPC that answers in the wrong shape (P161). POST /verify with a real EVM receipt (made by the real
// anchor service on a local chain) against the real verification service, whose ANCHOR_VERIFY_ETH_RPC_URL is a
// local server that forwards to the chain and rewrites the chain's answer as each test asks. An answer that is not
// an answer (a field missing or of the wrong type, about another transaction than asked) says nothing about the
// receipt: `skipped` PROTO-E701, retryable, kept only for the retry TTL. A well-formed answer that contradicts the
// receipt (no such transaction, reverted, another block, no Anchored event) still fails the bundle.
import { confirmedEvmReceipt, type LocalChain, startLocalChain, TEST_CHAIN_ID } from '@proto/anchor/testing';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import {
  answerJson,
  type FrontRequest,
  forwardTo,
  type HostileFront,
  startHostileFront,
} from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startApp } from '../../src/test-support.ts';

type Rpc = { jsonrpc?: string; id?: unknown; method?: string; result?: unknown };
type TxReceipt = Record<string, unknown>;
/** In place of a result: the answer is sent with neither `result` nor `error`. */
const NO_RESULT = Symbol('no result');
/** How the front rewrites one JSON-RPC answer of the chain; undefined: forwarded as it is. */
type Rewrite = (method: string, result: unknown) => unknown;

const RETRY_TTL_MS = 1500;

let chain: LocalChain;
let target: StoreTarget;
let anchor: FastifyInstance;
let rpc: HostileFront;
let rewrite: Rewrite | undefined;
/** Every request asks the front again (anchor cache off). */
let uncached: RunningApp;
/** The service's own cache settings, with a short retry TTL: what a faulty answer leaves behind. */
let cached: RunningApp;
const sample = sampleBundle({});
let receipt: Record<string, unknown>;

/** The chain's true answer, then the test's rewrite of its `result` (the id stays the request's). */
async function front(request: FrontRequest): Promise<string> {
  const { method } = JSON.parse(request.text()) as Rpc;
  const json = (await (await forwardTo(chain.url, request)).json()) as Rpc;
  if (rewrite === undefined || json.result === undefined) return JSON.stringify(json);
  const result = rewrite(method ?? '', json.result);
  if (result === NO_RESULT) return JSON.stringify({ jsonrpc: json.jsonrpc, id: json.id });
  return JSON.stringify({ ...json, result });
}

/** Rewrites only the transaction receipt (eth_getTransactionReceipt), leaving the other calls true. */
function onTxReceipt(change: (tx: TxReceipt) => unknown): Rewrite {
  return (method, result) =>
    method === 'eth_getTransactionReceipt' ? change({ ...(result as TxReceipt) }) : result;
}

function without(field: string): Rewrite {
  return onTxReceipt((tx) => {
    delete tx[field];
    return tx;
  });
}

beforeAll(async () => {
  [chain, target] = await Promise.all([
    startLocalChain(),
    createStoreTarget('sqlite', 'verification-malformed'),
  ]);
  ({ anchor, receipt } = await confirmedEvmReceipt(chain, await target.open(), sample.bundleHash));
  expect(receipt).toMatchObject({ status: 'confirmed' });

  rpc = await startHostileFront(async (request, res) => answerJson(res, 200, await front(request)));
  const env = {
    VERIFY_WORKERS: '1',
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    ANCHOR_VERIFY_ETH_RPC_URL: JSON.stringify({ ethereum: rpc.url }),
    ANCHOR_VERIFY_TIMEOUT_MS: '3000',
  };
  uncached = await startApp({ ...env, ANCHOR_VERIFY_CACHE_MAX_ENTRIES: '0' });
  // ANCHOR_VERIFY_CACHE_TTL_MS stays at its default (10 minutes): only the retry TTL is shortened.
  cached = await startApp({ ...env, ANCHOR_VERIFY_CACHE_RETRY_TTL_MS: String(RETRY_TTL_MS) });
}, 120_000);

afterAll(async () => {
  await uncached?.close();
  await cached?.close();
  await anchor?.close();
  await target?.cleanup();
  await chain?.close();
  await rpc?.close();
});

beforeEach(() => {
  rewrite = undefined;
});

/** POST /verify with the genuine bundle and its genuine receipt. */
async function verify(app: RunningApp) {
  const { status, json } = await postVerify(app.url, {
    signed_bundle: sample.signed_bundle,
    anchor_receipt: receipt,
  });
  expect(status).toBe(200);
  return json;
}

async function expectUnavailable(app: RunningApp, pattern: RegExp): Promise<void> {
  const json = await verify(app);
  expect(json, JSON.stringify(json)).toMatchObject({ verified: true, checks: { anchor: 'skipped' } });
  const warnings = String(json['warnings']);
  expect(warnings, warnings).toMatch(/anchor_receipt not checked \[PROTO-E701, retryable\]/);
  expect(warnings, warnings).toMatch(pattern);
}

async function expectContradiction(pattern: RegExp): Promise<void> {
  const json = await verify(uncached);
  expect(json, JSON.stringify(json)).toMatchObject({ verified: false, checks: { anchor: 'fail' } });
  expect(JSON.stringify(json['error_details']), JSON.stringify(json)).toMatch(pattern);
}

describe('P161: an EVM node answer that is not an answer is the source unavailable, not a failed bundle', () => {
  it('through an honest node the receipt passes (the fixture is real)', async () => {
    const json = await verify(uncached);
    expect(json, JSON.stringify(json)).toMatchObject({ verified: true, checks: { anchor: 'pass' } });
  });

  it('a transaction receipt without blockNumber', async () => {
    rewrite = without('blockNumber');
    await expectUnavailable(uncached, /block number/);
  });

  it('a tip block that is not a quantity', async () => {
    rewrite = (method, result) => (method === 'eth_blockNumber' ? 'soon' : result);
    await expectUnavailable(uncached, /block number/);
  });

  it('a transaction receipt about another transaction than asked', async () => {
    rewrite = onTxReceipt((tx) => ({ ...tx, transactionHash: `0x${'ab'.repeat(32)}` }));
    await expectUnavailable(uncached, /another transaction/);
  });

  it('a transaction receipt without status', async () => {
    rewrite = without('status');
    await expectUnavailable(uncached, /status/);
  });

  it('a transaction receipt whose logs are not a list', async () => {
    rewrite = onTxReceipt((tx) => ({ ...tx, logs: 'none' }));
    await expectUnavailable(uncached, /logs/);
  });

  it('a transaction receipt that is a string, not an object', async () => {
    rewrite = onTxReceipt(() => '0xdeadbeef');
    await expectUnavailable(uncached, /not a transaction receipt/);
  });

  it('an answer with neither result nor error is not the node saying "no such transaction"', async () => {
    rewrite = onTxReceipt(() => NO_RESULT);
    await expectUnavailable(uncached, /without result/);
  });

  it('an eth_chainId answer that is not a quantity (the receipt names a chain id)', async () => {
    expect(receipt['chain_id']).toBe(TEST_CHAIN_ID);
    rewrite = (method, result) => (method === 'eth_chainId' ? { id: 1 } : result);
    await expectUnavailable(uncached, /eth_chainId without a chain id/);
  });

  it('the faulty answer is kept only for the retry TTL: once the node is healthy the bundle verifies', async () => {
    rewrite = without('blockNumber');
    const faulty = await verify(cached);
    rewrite = undefined;
    // Not the 10 minutes of ANCHOR_VERIFY_CACHE_TTL_MS: after the retry TTL the node is asked again.
    await new Promise((resolve) => setTimeout(resolve, RETRY_TTL_MS + 200));
    const healthy = await verify(cached);
    const seen = { faulty, healthy };
    expect(seen, JSON.stringify(seen)).toMatchObject({
      faulty: { verified: true, checks: { anchor: 'skipped' } },
      healthy: { verified: true, checks: { anchor: 'pass' } },
    });
    expect(String(faulty['warnings'])).toMatch(/\[PROTO-E701, retryable\].*block number/);
  });
});

describe('P161: a well-formed answer that contradicts the receipt still fails it', () => {
  it('the node knows no such transaction (result null)', async () => {
    rewrite = onTxReceipt(() => null);
    await expectContradiction(/"code":"PROTO-E202".*has no transaction.*"retryable":false/);
  });

  it('the transaction reverted', async () => {
    rewrite = onTxReceipt((tx) => ({ ...tx, status: '0x0' }));
    await expectContradiction(/"code":"PROTO-E202".*reverted.*"retryable":false/);
  });

  it('the transaction is in another block than the receipt says', async () => {
    rewrite = onTxReceipt((tx) => ({
      ...tx,
      blockNumber: `0x${(Number(tx['blockNumber']) - 1).toString(16)}`,
    }));
    await expectContradiction(/"code":"PROTO-E202".*is in block.*"retryable":false/);
  });

  it('the transaction emits no Anchored event', async () => {
    rewrite = onTxReceipt((tx) => ({ ...tx, logs: [] }));
    await expectContradiction(/"code":"PROTO-E202".*emits no Anchored.*"retryable":false/);
  });
});
