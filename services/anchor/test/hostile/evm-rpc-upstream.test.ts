// The anchor service's EVM JSON-RPC seen as faulty or hostile (P177): every exchange of the EVM adapter is one
// bounded exchange (fetchBounded, P167) timed by ANCHOR_UPSTREAM_TIMEOUT_MS (P168). A local node:http front sits
// in front of the real local chain and forwards, or misbehaves on the one method a test aims at. Whatever it does,
// the request stays queued and is retried (a transient fault, logged at warn), never failed for good and never
// logged as a broken pass; an honest node then confirms it. P184: the same holds for an answer whose JSON-RPC
// envelope is sound but whose `result` is not what the method returns (wrong type, wrong length, a field missing).
import type { ServerResponse } from 'node:http';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import {
  answerJson,
  dripForever,
  type FrontRequest,
  type HostileFront,
  JSON_TYPE,
  lieAboutLength,
  redirectTo,
  startHostileFront,
  writeHugeAnswer,
} from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { parseTransaction } from 'viem';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { getReceipt, hashOf, postAnchor, testApp } from '../../src/testing/app.ts';
import { evmEnv, startChainWithContract } from '../../src/testing/evm-chain.ts';
import type { LocalChain } from '../../src/testing/ganache.ts';
import {
  answerRewritten,
  CHAIN,
  confirmsAfterwards,
  forwardCall,
  type LogLine,
  methodOf,
  type ResultRewrites,
  startAnchorBehind,
  unreachableIn,
} from './testing/evm-front.ts';

type Mode = 'forward' | 'huge' | 'length-lie' | 'redirect' | 'drip' | 'malformed';

/** Whitespace before the node's true answer: still valid JSON once read in full. */
const HUGE_PADDING = 48 * 1024 * 1024;
const UPSTREAM_TIMEOUT_MS = 3000;

let chain: LocalChain;
let contract: string;
let front: HostileFront;
let frontUrl: string;
/** Another host a redirect points at; it forwards too, so following the redirect would "work". */
let elsewhere: HostileFront;
let cutShort = 0;
let mode: Mode = 'forward';
/** The JSON-RPC method the front misbehaves on; every other call is forwarded. */
let aimedAt = 'eth_sendRawTransaction';
/** 'malformed': the node's true answer to each method named here, its `result` replaced by what the function gives. */
let malform: ResultRewrites = {};
let target: StoreTarget;
let app: FastifyInstance;
/** The service's log lines at warn and above, parsed. */
let logLines: LogLine[] = [];

const forward = (body: Buffer) => forwardCall(chain.url, body);

async function hostile(request: FrontRequest, res: ServerResponse): Promise<void> {
  const { body } = request;
  if (mode === 'malformed') return answerRewritten(res, chain.url, body, malform);
  if (mode === 'forward' || !body.includes(aimedAt)) {
    const { status, text } = await forward(body);
    answerJson(res, status, text);
    return;
  }
  switch (mode) {
    case 'huge': {
      const { status, text } = await forward(body);
      res.writeHead(status, JSON_TYPE);
      await writeHugeAnswer(res, HUGE_PADDING, text, () => {
        cutShort += 1;
      });
      return;
    }
    case 'length-lie':
      lieAboutLength(res, { first: '{"jsonrpc":"2.0",' });
      return;
    case 'redirect':
      redirectTo(res, `${elsewhere.url}/`);
      return;
    case 'drip':
      // Headers at once, then a byte every 200 ms for far longer than the configured timeout.
      dripForever(res, { everyMs: 200 });
      return;
  }
}

const failedPasses = () => logLines.filter((l) => l.msg === 'anchor: pass failed');
const unreachable = () => unreachableIn(logLines);

beforeAll(async () => {
  ({ chain, contract } = await startChainWithContract());
  front = await startHostileFront(hostile);
  frontUrl = front.url;
  elsewhere = await startHostileFront(async (request, res) => {
    const { status, text } = await forward(request.body);
    answerJson(res, status, text);
  });
  ({ app, target, logLines } = await startAnchorBehind({
    rpcUrl: frontUrl,
    contract,
    label: 'anchor-evm-upstream',
    upstreamTimeoutMs: UPSTREAM_TIMEOUT_MS,
  }));
}, 120_000);

afterAll(async () => {
  await app?.close();
  await target?.cleanup();
  await chain?.close();
  await front?.close();
  await elsewhere?.close();
});

beforeEach(() => {
  mode = 'forward';
  malform = {};
  aimedAt = 'eth_sendRawTransaction';
  logLines.length = 0;
});

/** Queues `hash` and runs one worker pass while the front misbehaves on `method`; the pass's duration. */
async function passWith(m: Mode, method: string, hash: string): Promise<number> {
  expect((await postAnchor(app, hash, CHAIN)).statusCode).toBe(202);
  mode = m;
  aimedAt = method;
  const started = performance.now();
  try {
    await app.anchorWorker.run(CHAIN, true);
  } finally {
    mode = 'forward';
  }
  return performance.now() - started;
}

/** The refused pass left the request queued, logged as the chain unreachable, not as a broken pass. */
function expectTransient(): void {
  expect(failedPasses()).toEqual([]);
  expect(unreachable().length).toBeGreaterThan(0);
}

/** The send was not taken as the chain refusing the write (a failed batch, an attempt spent): it is retried. */
function expectSendRetried(): void {
  expect(logLines.filter((l) => l.msg === 'anchor: write refused')).toEqual([]);
  expect(logLines.filter((l) => l.msg === 'anchor: send failed, retrying later').length).toBeGreaterThan(0);
  expect(failedPasses()).toEqual([]);
}

describe('P177: a hostile EVM JSON-RPC cannot flood, redirect or hold the anchor writes', () => {
  it('through an honest front the receipt is confirmed (the fixture is real)', async () => {
    const h = hashOf('evm upstream honest');
    await passWith('forward', 'eth_sendRawTransaction', h);
    await confirmsAfterwards(app, h);
    expect(failedPasses()).toEqual([]);
  });

  it('a 48 MiB answer to eth_sendRawTransaction is cut and retried, not a write refused for good', async () => {
    const h = hashOf('evm upstream huge send');
    const cut = cutShort;
    await passWith('huge', 'eth_sendRawTransaction', h);
    expectSendRetried();
    expect((await getReceipt(app, h))['status']).toBe('pending');
    await expect.poll(() => cutShort - cut, { timeout: 5000 }).toBeGreaterThan(0);
    await confirmsAfterwards(app, h);
  }, 60_000);

  it('a Content-Length of 500 MB to eth_sendRawTransaction is refused at once and retried', async () => {
    const h = hashOf('evm upstream length lie');
    const ms = await passWith('length-lie', 'eth_sendRawTransaction', h);
    expect(ms).toBeLessThan(UPSTREAM_TIMEOUT_MS);
    expectSendRetried();
    expect((await getReceipt(app, h))['status']).toBe('pending');
    await confirmsAfterwards(app, h);
  }, 60_000);

  it('a 48 MiB answer to a read (the nonce) is the chain unreachable, not a broken pass', async () => {
    const h = hashOf('evm upstream huge read');
    const cut = cutShort;
    await passWith('huge', 'eth_getTransactionCount', h);
    expectTransient();
    expect((await getReceipt(app, h))['status']).toBe('pending');
    await expect.poll(() => cutShort - cut, { timeout: 5000 }).toBeGreaterThan(0);
    await confirmsAfterwards(app, h);
  }, 60_000);

  it('a redirect is not followed, and the warning says why', async () => {
    const h = hashOf('evm upstream redirect read');
    const hits = elsewhere.hits();
    await passWith('redirect', 'eth_getTransactionCount', h);
    expect(elsewhere.hits() - hits).toBe(0);
    expectTransient();
    expect(JSON.stringify(unreachable())).toContain('redirects are not followed');
    await confirmsAfterwards(app, h);
  }, 60_000);

  it('an answer that drips is given up after ANCHOR_UPSTREAM_TIMEOUT_MS, body included', async () => {
    const h = hashOf('evm upstream drip');
    const ms = await passWith('drip', 'eth_sendRawTransaction', h);
    expect(ms).toBeGreaterThanOrEqual(UPSTREAM_TIMEOUT_MS - 100);
    expect(ms).toBeLessThan(UPSTREAM_TIMEOUT_MS + 3000);
    expectSendRetried();
    expect((await getReceipt(app, h))['status']).toBe('pending');
    await confirmsAfterwards(app, h);
  }, 60_000);
});

/** Past 2^256: no quantity of the EVM is this large. */
const HUGE_HEX = `0x${'f'.repeat(80)}`;
type Json = Record<string, unknown>;
const without =
  (field: string) =>
  (honest: unknown): Json =>
    Object.fromEntries(Object.entries(honest as Json).filter(([name]) => name !== field));
const withField = (field: string, value: unknown) => (honest: unknown) => ({
  ...(honest as Json),
  [field]: value,
});
const eachLog = (change: (log: Json) => Json) => (honest: unknown) => {
  const receipt = honest as Json & { logs: Json[] };
  return { ...receipt, logs: receipt.logs.map(change) };
};

/** Each row: a method the worker calls, and what its `result` becomes. */
const MALFORMED: readonly (readonly [string, string, (honest: unknown) => unknown])[] = [
  ['eth_getTransactionCount', 'not hex', () => '0xzz'],
  ['eth_getTransactionCount', 'past 2^256', () => HUGE_HEX],
  ['eth_getTransactionCount', 'null', () => null],
  ['eth_getTransactionCount', 'an object', () => ({ count: 1 })],
  ['eth_getTransactionCount', 'left out', () => undefined],
  ['eth_estimateGas', 'past 2^256', () => HUGE_HEX],
  ['eth_estimateGas', 'not hex', () => 'lots'],
  ['eth_getBlockByNumber', 'null for the latest block', () => null],
  ['eth_getBlockByNumber', 'a base fee that is not hex', withField('baseFeePerGas', '0xzz')],
  ['eth_maxPriorityFeePerGas', 'past 2^256', () => HUGE_HEX],
  ['eth_getTransactionReceipt', 'a receipt without status', without('status')],
  ['eth_getTransactionReceipt', 'a status that is neither 0x0 nor 0x1', withField('status', '0x7')],
  ['eth_getTransactionReceipt', 'a receipt without logs', without('logs')],
  ['eth_getTransactionReceipt', 'logs: null', withField('logs', null)],
  ['eth_getTransactionReceipt', 'a string for the receipt', () => '0x12'],
  ['eth_getTransactionReceipt', 'a block number past 2^256', withField('blockNumber', HUGE_HEX)],
  ['eth_getTransactionReceipt', 'a block number that is not hex', withField('blockNumber', '0xzz')],
  ['eth_getTransactionReceipt', 'a block hash of 20 bytes', withField('blockHash', `0x${'ab'.repeat(20)}`)],
  ['eth_getTransactionReceipt', 'a log index that is not hex', eachLog((l) => ({ ...l, logIndex: 'zz' }))],
  ['eth_getTransactionReceipt', 'a log without topics', eachLog(({ topics: _t, ...l }) => l)],
  ['eth_getTransactionReceipt', 'a log whose data is not hex', eachLog((l) => ({ ...l, data: 'zz' }))],
  ['eth_blockNumber', 'not hex', () => '0xzz'],
  ['eth_blockNumber', 'past 2^256', () => HUGE_HEX],
  ['eth_blockNumber', 'null', () => null],
];

describe('P184: a JSON-RPC answer whose result is malformed is the chain unreachable, never a write failed', () => {
  it('the worker asks for these methods (what the table below covers)', async () => {
    const h = hashOf('evm upstream methods');
    const from = front.hits();
    await passWith('forward', 'eth_sendRawTransaction', h);
    await confirmsAfterwards(app, h);
    const methods = new Set(front.requests.slice(from).map((r) => methodOf(r.body)));
    for (const method of ['eth_sendRawTransaction', ...new Set(MALFORMED.map(([m]) => m))])
      expect(methods).toContain(method);
  }, 60_000);

  it.each(MALFORMED)(
    '%s answered with %s',
    async (method, what, change) => {
      const h = hashOf(`evm upstream malformed ${method} ${what}`);
      expect((await postAnchor(app, h, CHAIN)).statusCode).toBe(202);
      mode = 'malformed';
      malform = { [method]: change };
      try {
        // More passes than ANCHOR_MAX_ATTEMPTS (3): a write taken as failed would have spent them all.
        for (let pass = 0; pass < 4; pass++) await app.anchorWorker.run(CHAIN, true);
      } finally {
        mode = 'forward';
        malform = {};
      }
      expect(logLines.filter((l) => /write refused|write failed/.test(l.msg))).toEqual([]);
      expectTransient();
      expect(JSON.stringify(unreachable())).toContain('malformed');
      expect((await getReceipt(app, h))['status']).not.toBe('confirmed');
      await confirmsAfterwards(app, h);
      const receipt = await getReceipt(app, h);
      expect(Number.isSafeInteger(receipt['block_number'])).toBe(true);
      expect(receipt['tx_id']).toMatch(/^0x[0-9a-f]{64}$/);
    },
    60_000,
  );

  it.each([
    ['eth_sendRawTransaction', 'a hash of 20 bytes', (): unknown => `0x${'ab'.repeat(20)}`],
    ['eth_sendRawTransaction', 'null', (): unknown => null],
    ['eth_sendRawTransaction', 'an object', (): unknown => ({ hash: 1 })],
    // viem sets this answer aside and takes the tip from eth_gasPrice and the block's base fee.
    ['eth_maxPriorityFeePerGas', 'not hex', (): unknown => 'zz'],
  ] as const)(
    '%s answered with %s: the write is not refused and confirms',
    async (method, what, change) => {
      const h = hashOf(`evm upstream malformed ${method} ${what}`);
      expect((await postAnchor(app, h, CHAIN)).statusCode).toBe(202);
      mode = 'malformed';
      malform = { [method]: change };
      try {
        await app.anchorWorker.run(CHAIN, false);
      } finally {
        mode = 'forward';
        malform = {};
      }
      expect(logLines.filter((l) => /write refused|write failed/.test(l.msg))).toEqual([]);
      expect(failedPasses()).toEqual([]);
      await confirmsAfterwards(app, h);
    },
    60_000,
  );
});

describe('P184: readiness and the fee bump read through the same classification', () => {
  it.each([
    ['not hex', (): unknown => '0xzz'],
    ['past 2^256', (): unknown => HUGE_HEX],
    ['null', (): unknown => null],
  ] as const)(
    'eth_chainId answered with %s: /ready is 503 and the log says the chain id answer is malformed',
    async (_what, change) => {
      mode = 'malformed';
      malform = { eth_chainId: change };
      try {
        const res = await app.inject({ method: 'GET', url: '/ready' });
        expect(res.statusCode).toBe(503);
        expect(res.body).not.toMatch(/\n\s+at /);
      } finally {
        mode = 'forward';
        malform = {};
      }
      const failed = logLines.filter((l) => l.msg === 'readiness check failed');
      expect(failed).toHaveLength(1);
      expect(failed[0]?.err).toMatchObject({
        type: 'TransientError',
        message: expect.stringContaining('chain id: malformed answer'),
      });
      expect((await app.inject({ method: 'GET', url: '/ready' })).statusCode).toBe(200);
    },
  );

  it('a fee estimate past 2^256 while a write is stuck is no estimate: the bump offers 12.5 %, not ETH_MAX_FEE_GWEI', async () => {
    const bumpTarget = await createStoreTarget('sqlite', 'anchor-evm-upstream-bump');
    const bumpApp = await testApp(
      {
        LOG_LEVEL: 'silent',
        ...evmEnv(frontUrl, contract),
        ETH_CONFIRMATIONS: '1',
        BATCH_INTERVAL_MS: '0',
        ETH_BUMP_AFTER_MS: '1',
        ETH_MAX_FEE_GWEI: '500',
      },
      await bumpTarget.open(),
    );
    const sent = () =>
      front.requests
        .filter((r) => methodOf(r.body) === 'eth_sendRawTransaction')
        .map((r) => {
          const call = JSON.parse(r.text()) as { params: [`0x${string}`] };
          return parseTransaction(call.params[0]);
        });
    const h = hashOf('evm upstream bump with a malformed fee estimate');
    await chain.rpc('miner_stop');
    try {
      expect((await postAnchor(bumpApp, h, CHAIN)).statusCode).toBe(202);
      await bumpApp.anchorWorker.run(CHAIN, true);
      const original = sent().at(-1);
      expect(original?.maxFeePerGas).toBeDefined();
      await new Promise((resolve) => setTimeout(resolve, 20));
      mode = 'malformed';
      malform = {
        eth_gasPrice: () => HUGE_HEX,
        eth_getBlockByNumber: (block) => ({ ...(block as Json), baseFeePerGas: HUGE_HEX }),
      };
      try {
        await bumpApp.anchorWorker.run(CHAIN, true);
      } finally {
        mode = 'forward';
        malform = {};
      }
      const replacement = sent().at(-1);
      expect(replacement?.nonce).toBe(original?.nonce);
      const old = original?.maxFeePerGas ?? 0n;
      // The 12.5 % raise, rounded up (evm-fee-bump.ts), where a huge estimate took the fee to the cap.
      expect(replacement?.maxFeePerGas).toBe((old * 9n + 7n) / 8n);
      expect(replacement?.maxFeePerGas).toBeLessThan(500n * 1_000_000_000n);
    } finally {
      await chain.rpc('miner_start');
    }
    await chain.mine(1);
    for (let pass = 0; pass < 3; pass++) {
      await bumpApp.anchorWorker.run(CHAIN, true);
      if ((await getReceipt(bumpApp, h))['status'] === 'confirmed') break;
    }
    expect(await getReceipt(bumpApp, h)).toMatchObject({ status: 'confirmed' });
    await bumpApp.close();
    await bumpTarget.cleanup();
  }, 60_000);
});

describe('P192: the first write offers at most ETH_MAX_FEE_GWEI, whatever the node quotes', () => {
  const CAP_GWEI = 500n;
  const capWei = CAP_GWEI * 1_000_000_000n;
  /** A well-formed quote far above the cap: 1,000,000 gwei a gas (about 50 ETH for one anchor call). */
  const QUOTE = `0x${(1_000_000n * 1_000_000_000n).toString(16)}`;
  const firstSent = (from: number) =>
    front.requests
      .slice(from)
      .filter((r) => methodOf(r.body) === 'eth_sendRawTransaction')
      .map((r) => parseTransaction((JSON.parse(r.text()) as { params: [`0x${string}`] }).params[0]));

  it.each([
    ['an EIP-1559 tip', { eth_maxPriorityFeePerGas: (): unknown => QUOTE }],
    [
      'a base fee (so the max fee)',
      { eth_getBlockByNumber: (block: unknown): unknown => ({ ...(block as Json), baseFeePerGas: QUOTE }) },
    ],
  ] as const)(
    'a node quoting %s of 1,000,000 gwei gets a write capped at the setting, which still confirms',
    async (_what, change) => {
      const from = front.requests.length;
      const h = hashOf(`evm first write with a quote above the cap: ${_what}`);
      expect((await postAnchor(app, h, CHAIN)).statusCode).toBe(202);
      mode = 'malformed';
      malform = change;
      try {
        await app.anchorWorker.run(CHAIN, true);
      } finally {
        mode = 'forward';
        malform = {};
      }
      const [tx] = firstSent(from);
      expect(tx?.type).toBe('eip1559');
      expect(tx?.maxFeePerGas).toBeLessThanOrEqual(capWei);
      expect(tx?.maxPriorityFeePerGas).toBeLessThanOrEqual(tx?.maxFeePerGas ?? 0n);
      expect(failedPasses()).toEqual([]);
      await confirmsAfterwards(app, h);
    },
    60_000,
  );
});
