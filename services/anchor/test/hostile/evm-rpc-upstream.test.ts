// The anchor service's EVM JSON-RPC seen as faulty or hostile (P177): every exchange of the EVM adapter is one
// bounded exchange (fetchBounded, P167) timed by ANCHOR_UPSTREAM_TIMEOUT_MS (P168). A local node:http front sits
// in front of the real local chain and forwards, or misbehaves on the one method a test aims at. Whatever it does,
// the request stays queued and is retried (a transient fault, logged at warn), never failed for good and never
// logged as a broken pass; an honest node then confirms it.
import type { ServerResponse } from 'node:http';
import { deployAnchorContract } from '@proto/clients/contract';
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
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { getReceipt, hashOf, postAnchor, testApp } from '../../src/testing/app.ts';
import {
  ANCHOR_KEY,
  DEPLOYER_KEY,
  type LocalChain,
  startLocalChain,
  TEST_CHAIN_ID,
} from '../../src/testing/ganache.ts';

type Mode = 'forward' | 'huge' | 'length-lie' | 'redirect' | 'drip';

const CHAIN = 'ethereum';
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
let target: StoreTarget;
let app: FastifyInstance;
/** The service's log lines at warn and above, parsed. */
const logLines: { level: number; msg: string; err?: unknown }[] = [];

async function forward(body: Buffer): Promise<{ status: number; text: string }> {
  const answer = await fetch(chain.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  return { status: answer.status, text: await answer.text() };
}

async function hostile(request: FrontRequest, res: ServerResponse): Promise<void> {
  const { body } = request;
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
const unreachable = () =>
  logLines.filter((l) => l.msg === 'anchor: chain unreachable, retrying on the next pass');

beforeAll(async () => {
  chain = await startLocalChain();
  ({ contract } = await deployAnchorContract({ rpcUrl: chain.url, privateKey: DEPLOYER_KEY }));
  front = await startHostileFront(hostile);
  frontUrl = front.url;
  elsewhere = await startHostileFront(async (request, res) => {
    const { status, text } = await forward(request.body);
    answerJson(res, status, text);
  });
  target = await createStoreTarget('sqlite', 'anchor-evm-upstream');
  app = await testApp(
    {
      LOG_LEVEL: 'warn',
      // The machine's load is not what these tests are about.
      MAX_EVENT_LOOP_DELAY_MS: '0',
      ETH_RPC_URL: frontUrl,
      ETH_CHAIN_ID: String(TEST_CHAIN_ID),
      ETH_CONTRACT: contract,
      ETH_PRIVATE_KEY: ANCHOR_KEY,
      ETH_CONFIRMATIONS: '1',
      BATCH_INTERVAL_MS: '0',
      ANCHOR_UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS),
    },
    await target.open(),
    {
      logger: {
        stream: {
          write(line: string) {
            logLines.push(JSON.parse(line) as { level: number; msg: string });
          },
        },
      },
    },
  );
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

/** After a refused pass an honest node confirms the same request: nothing was lost or failed for good. */
async function confirmsAfterwards(hash: string): Promise<void> {
  for (let pass = 0; pass < 3; pass++) {
    await app.anchorWorker.run(CHAIN, true);
    if ((await getReceipt(app, hash))['status'] === 'confirmed') break;
  }
  expect(await getReceipt(app, hash)).toMatchObject({ status: 'confirmed' });
}

describe('P177: a hostile EVM JSON-RPC cannot flood, redirect or hold the anchor writes', () => {
  it('through an honest front the receipt is confirmed (the fixture is real)', async () => {
    const h = hashOf('evm upstream honest');
    await passWith('forward', 'eth_sendRawTransaction', h);
    await confirmsAfterwards(h);
    expect(failedPasses()).toEqual([]);
  });

  it('a 48 MiB answer to eth_sendRawTransaction is cut and retried, not a write refused for good', async () => {
    const h = hashOf('evm upstream huge send');
    const cut = cutShort;
    await passWith('huge', 'eth_sendRawTransaction', h);
    expectSendRetried();
    expect((await getReceipt(app, h))['status']).toBe('pending');
    await expect.poll(() => cutShort - cut, { timeout: 5000 }).toBeGreaterThan(0);
    await confirmsAfterwards(h);
  }, 60_000);

  it('a Content-Length of 500 MB to eth_sendRawTransaction is refused at once and retried', async () => {
    const h = hashOf('evm upstream length lie');
    const ms = await passWith('length-lie', 'eth_sendRawTransaction', h);
    expect(ms).toBeLessThan(UPSTREAM_TIMEOUT_MS);
    expectSendRetried();
    expect((await getReceipt(app, h))['status']).toBe('pending');
    await confirmsAfterwards(h);
  }, 60_000);

  it('a 48 MiB answer to a read (the nonce) is the chain unreachable, not a broken pass', async () => {
    const h = hashOf('evm upstream huge read');
    const cut = cutShort;
    await passWith('huge', 'eth_getTransactionCount', h);
    expectTransient();
    expect((await getReceipt(app, h))['status']).toBe('pending');
    await expect.poll(() => cutShort - cut, { timeout: 5000 }).toBeGreaterThan(0);
    await confirmsAfterwards(h);
  }, 60_000);

  it('a redirect is not followed, and the warning says why', async () => {
    const h = hashOf('evm upstream redirect read');
    const hits = elsewhere.hits();
    await passWith('redirect', 'eth_getTransactionCount', h);
    expect(elsewhere.hits() - hits).toBe(0);
    expectTransient();
    expect(JSON.stringify(unreachable())).toContain('redirects are not followed');
    await confirmsAfterwards(h);
  }, 60_000);

  it('an answer that drips is given up after ANCHOR_UPSTREAM_TIMEOUT_MS, body included', async () => {
    const h = hashOf('evm upstream drip');
    const ms = await passWith('drip', 'eth_sendRawTransaction', h);
    expect(ms).toBeGreaterThanOrEqual(UPSTREAM_TIMEOUT_MS - 100);
    expect(ms).toBeLessThan(UPSTREAM_TIMEOUT_MS + 3000);
    expectSendRetried();
    expect((await getReceipt(app, h))['status']).toBe('pending');
    await confirmsAfterwards(h);
  }, 60_000);
});
