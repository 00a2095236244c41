// Well-formed EVM JSON-RPC answers that no honest node gives (P196): a gas estimate past what our one contract call
// can need, and a transaction looked up by hash that is another one (or none with a hash). The real anchor service
// on a real local chain, a node:http front that forwards every call and rewrites the `result` of the methods a test
// names. Such an answer is the node unreliable: the request stays queued (transient, logged as the chain unreachable),
// nothing is signed with that gas, no attempt is spent, and an honest node then confirms the same request.
import type { ServerResponse } from 'node:http';
import type { StoreTarget } from '@proto/store/testing';
import { type FrontRequest, type HostileFront, startHostileFront } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { parseTransaction } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_ANCHOR_CALL_GAS } from '../../src/adapters/ethereum.ts';
import { getReceipt, hashOf, postAnchor } from '../../src/testing/app.ts';
import { deployContract } from '../../src/testing/evm-chain.ts';
import { type LocalChain, startLocalChain } from '../../src/testing/ganache.ts';
import {
  answerRewritten,
  CHAIN,
  confirmsAfterwards,
  type LogLine,
  methodOf,
  type ResultRewrites,
  startAnchorBehind,
  unreachableIn,
} from './testing/evm-front.ts';

type Json = Record<string, unknown>;

let chain: LocalChain;
let front: HostileFront;
let target: StoreTarget;
let app: FastifyInstance;
/** The node's true answer to each method named here, its `result` replaced by what the function gives. */
let rewrite: ResultRewrites = {};
let logLines: LogLine[] = [];

const rewriting = (request: FrontRequest, res: ServerResponse) =>
  answerRewritten(res, chain.url, request.body, rewrite);

beforeAll(async () => {
  chain = await startLocalChain();
  const contract = await deployContract(chain);
  front = await startHostileFront(rewriting);
  ({ app, target, logLines } = await startAnchorBehind({
    rpcUrl: front.url,
    contract,
    label: 'anchor-evm-answers',
    upstreamTimeoutMs: 3000,
  }));
}, 120_000);

afterAll(async () => {
  await app?.close();
  await target?.cleanup();
  await chain?.close();
  await front?.close();
});

beforeEach(() => {
  rewrite = {};
  logLines.length = 0;
});

const unreachable = () => unreachableIn(logLines);
const refusedOrFailed = () => logLines.filter((l) => /write refused|write failed|pass failed/.test(l.msg));
const sentFrom = (from: number) =>
  front.requests
    .slice(from)
    .filter((r) => methodOf(r.body) === 'eth_sendRawTransaction')
    .map((r) => parseTransaction((JSON.parse(r.text()) as { params: [`0x${string}`] }).params[0]));

/** Queues a request and runs more passes than ANCHOR_MAX_ATTEMPTS (3) while the front rewrites `methods`. */
async function passesWith(label: string, methods: typeof rewrite): Promise<string> {
  const h = hashOf(label);
  expect((await postAnchor(app, h, CHAIN)).statusCode).toBe(202);
  rewrite = methods;
  try {
    for (let pass = 0; pass < 4; pass++) await app.anchorWorker.run(CHAIN, true);
  } finally {
    rewrite = {};
  }
  return h;
}

const quantity = (n: bigint) => `0x${n.toString(16)}`;

describe('P196: a gas estimate past what the anchor call can need is the node unreliable, never signed', () => {
  it('the honest estimate is far below the ceiling (the bound leaves room)', async () => {
    const from = front.requests.length;
    const h = await passesWith('evm answers honest gas', {});
    await confirmsAfterwards(app, h);
    const [tx] = sentFrom(from);
    expect(tx?.gas).toBeGreaterThan(0n);
    expect(tx?.gas).toBeLessThan(MAX_ANCHOR_CALL_GAS / 20n);
  }, 60_000);

  it.each([
    ['twice the ceiling', MAX_ANCHOR_CALL_GAS * 2n],
    ['2^40 gas (above the block gas limit)', 2n ** 40n],
    ['one gas past the ceiling', MAX_ANCHOR_CALL_GAS + 1n],
  ])(
    'an estimate of %s: nothing signed with it, no attempt spent, then confirmed',
    async (what, gas) => {
      const from = front.requests.length;
      const h = await passesWith(`evm answers gas ${what}`, { eth_estimateGas: () => quantity(gas) });
      expect(sentFrom(from)).toEqual([]);
      expect(refusedOrFailed()).toEqual([]);
      expect(JSON.stringify(unreachable())).toContain('gas estimate');
      expect((await getReceipt(app, h))['status']).not.toBe('confirmed');
      await confirmsAfterwards(app, h);
      for (const tx of sentFrom(from))
        expect(tx.gas).toBeLessThanOrEqual((MAX_ANCHOR_CALL_GAS * 125n) / 100n);
    },
    60_000,
  );
});

describe('P196: a transaction looked up by hash must be the one asked for', () => {
  const noReceipt = (): unknown => null;
  it.each([
    [
      'another transaction (its hash)',
      (tx: unknown): unknown => ({ ...(tx as Json), hash: `0x${'ab'.repeat(32)}` }),
    ],
    [
      'a transaction without hash',
      (tx: unknown): unknown => {
        const { hash: _hash, ...rest } = tx as Json;
        return rest;
      },
    ],
  ] as const)(
    'a node answering %s while no receipt exists: the node unreliable, not a pending write',
    async (what, change) => {
      const h = await passesWith(`evm answers tx ${what}`, {
        eth_getTransactionReceipt: noReceipt,
        eth_getTransactionByHash: change,
      });
      expect(refusedOrFailed()).toEqual([]);
      const warnings = JSON.stringify(unreachable());
      expect(warnings).toContain('transaction');
      expect(warnings).toContain('malformed');
      await confirmsAfterwards(app, h);
    },
    60_000,
  );

  it('the honest answer (the same hash, the receipt withheld) is a pending write, no warning', async () => {
    const h = await passesWith('evm answers tx honest', { eth_getTransactionReceipt: noReceipt });
    expect(refusedOrFailed()).toEqual([]);
    expect(unreachable()).toEqual([]);
    expect((await getReceipt(app, h))['status']).not.toBe('confirmed');
    await confirmsAfterwards(app, h);
  }, 60_000);
});
