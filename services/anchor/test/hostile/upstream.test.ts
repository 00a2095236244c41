// The anchor service's own upstreams, seen as faulty or hostile (P155): the transparency log it appends to and the
// EVM JSON-RPC it writes through. A hostile front (@proto/testing's startHostileFront) sits in front of the real
// transparency-log service (or the local chain) and forwards, or misbehaves as each test asks. Whatever it does, a
// worker pass ends in bounded time, the request stays queued (retried later, counted in
// proto_anchor_send_failures_total), and nothing the upstream was not trusted for ends up in a receipt.
import { mkdtempSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '@proto/store';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import {
  answerJson,
  type FrontRequest,
  forwardTo,
  type HostileFront,
  JSON_TYPE,
  lieAboutLength,
  redirectTo,
  startHostileFront,
  writeHugeAnswer,
} from '@proto/testing';
import { buildTransparencyLog, loadTransparencyLogConfig } from '@proto/transparency-log';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bitcoinPrivateKey, bitcoinWallet } from '../../src/adapters/bitcoin.ts';
import { getReceipt, hashOf, postAnchor, testApp } from '../../src/testing/app.ts';
import { type EsploraTestServer, startEsploraServer } from '../../src/testing/esplora-server.ts';
import { deployContract, evmEnv } from '../../src/testing/evm-chain.ts';
import { type LocalChain, startLocalChain } from '../../src/testing/ganache.ts';

type Mode = 'forward' | 'huge' | 'length-lie' | 'redirect' | 'timestamp' | 'html' | 'stall';

const LOG_TOKEN = 'log-operator-token-0123456789';
const LOG = 'transparency-log';
/** Whitespace before the log's true answer: still valid JSON once read in full. */
const HUGE_PADDING = 48 * 1024 * 1024;

let log: FastifyInstance;
let logUrl: string;
let chain: LocalChain;
let target: StoreTarget;
let store: Store;
let app: FastifyInstance;
let mode: Mode = 'forward';
/** 'timestamp': the `timestamp` the log's own /add answer carries instead of its own. */
let timestamp: unknown;
let front: HostileFront;
let frontUrl: string;
/** Another host a redirect points at; it forwards too, so following the redirect would "work". */
let elsewhere: HostileFront;
let cutShort = 0;
/** Where the front forwards: the log, or the chain for the EVM tests. */
let upstreamOf: (path: string) => string;
/** The Esplora explorer the Bitcoin adapter reads and broadcasts through, behind its own front. */
let esplora: EsploraTestServer;
let btcFront: HostileFront;
let btcMode: 'forward' | 'huge-utxo' | 'redirect-tx' = 'forward';
const BTC_KEY_HEX = '45'.repeat(32);
const btcWallet = bitcoinWallet(bitcoinPrivateKey(BTC_KEY_HEX, 'regtest'), 'regtest');

/** The log's or the chain's own answer to `request`, the operator's token passed on (forwardTo). */
async function forward(request: FrontRequest): Promise<{ status: number; text: string }> {
  const answer = await forwardTo(upstreamOf(request.url), request);
  return { status: answer.status, text: await answer.text() };
}

/** Writes `bytes` of spaces then `tail`; counts an answer the client cut short. */
const writeHuge = (res: ServerResponse, bytes: number, tail: string) =>
  writeHugeAnswer(res, bytes, tail, () => {
    cutShort += 1;
  });

/** Is this the request that matters: the log's /add, or the chain's eth_sendRawTransaction? */
function targeted(request: FrontRequest): boolean {
  return request.url === '/add' || request.body.includes('eth_sendRawTransaction');
}

async function hostile(request: FrontRequest, res: ServerResponse): Promise<void> {
  if (mode === 'forward' || !targeted(request)) {
    const { status, text } = await forward(request);
    answerJson(res, status, text);
    return;
  }
  switch (mode) {
    case 'huge': {
      const { status, text } = await forward(request);
      res.writeHead(status, JSON_TYPE);
      await writeHuge(res, HUGE_PADDING, text);
      return;
    }
    case 'length-lie':
      lieAboutLength(res, { first: '{"log_index":' });
      return;
    case 'redirect':
      redirectTo(res, `${elsewhere.url}${request.url}`);
      return;
    case 'html':
      // A proxy's or a captive portal's page in place of the log: status 200, not JSON.
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<html><body>Sign in to continue</body></html>');
      return;
    case 'stall':
      // Headers, then nothing: only the adapter's timeout ends the exchange.
      res.writeHead(200, JSON_TYPE);
      res.write('{"log_index":');
      return;
    case 'timestamp': {
      // The log's own answer, with another time.
      const { status, text } = await forward(request);
      const answer = JSON.parse(text) as Record<string, unknown>;
      answerJson(res, status, { ...answer, timestamp });
      return;
    }
  }
}

async function sendFailures(chainName: string): Promise<number> {
  const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('proto_anchor_send_failures_total{') && line.includes(`chain="${chainName}"`)) {
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return total;
}

beforeAll(async () => {
  log = await buildTransparencyLog({
    config: loadTransparencyLogConfig({
      LOG_LEVEL: 'silent',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'anchor-upstream-tlog-')),
      OPERATOR_TOKEN: LOG_TOKEN,
      BATCH_WAIT_MS: '2',
      CHECKPOINT_INTERVAL_MS: '50',
      ADD_RATE_LIMIT_PER_MINUTE: '0',
      MAX_EVENT_LOOP_DELAY_MS: '0',
    }),
    logger: false,
  });
  logUrl = await log.listen({ port: 0, host: '127.0.0.1' });
  chain = await startLocalChain();
  const contract = await deployContract(chain);
  upstreamOf = (path) => (path === '/' ? chain.url : `${logUrl}${path}`);
  front = await startHostileFront(hostile);
  frontUrl = front.url;
  elsewhere = await startHostileFront(async (request, res) => {
    const { status, text } = await forward(request);
    answerJson(res, status, text);
  });
  esplora = await startEsploraServer('regtest');
  esplora.fund(btcWallet.address, 100_000);
  btcFront = await startHostileFront(async (request, res) => {
    const path = request.url;
    if (btcMode === 'redirect-tx' && request.method === 'POST' && path === '/tx') {
      redirectTo(res, `${elsewhere.url}/tx`);
      return;
    }
    const answer = await fetch(`${esplora.url}${path}`, {
      method: request.method,
      ...(request.method === 'POST' ? { body: request.body, headers: { 'content-type': 'text/plain' } } : {}),
    });
    const text = await answer.text();
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
    if (btcMode === 'huge-utxo' && path.endsWith('/utxo')) await writeHuge(res, HUGE_PADDING, text);
    else res.end(text);
  });
  target = await createStoreTarget('sqlite', 'anchor-upstream');
  store = await target.open();
  app = await testApp(
    {
      TL_URL: frontUrl,
      TL_TOKEN: LOG_TOKEN,
      ...evmEnv(frontUrl, contract),
      ETH_CONFIRMATIONS: '1',
      BTC_ESPLORA_URL: btcFront.url,
      BTC_PRIVATE_KEY: BTC_KEY_HEX,
      BTC_NETWORK: 'regtest',
      BTC_CONFIRMATIONS: '1',
      BATCH_INTERVAL_MS: '0',
    },
    store,
  );
}, 120_000);

afterAll(async () => {
  await app?.close();
  await target?.cleanup();
  await log?.close();
  await chain?.close();
  await esplora?.close();
  await front?.close();
  await elsewhere?.close();
  await btcFront?.close();
});

beforeEach(() => {
  mode = 'forward';
  btcMode = 'forward';
});

/** Queues `hash` on `chainName` and runs one worker pass while the front misbehaves; the pass's duration. */
async function passWith(m: Mode, chainName: string, hash: string): Promise<number> {
  expect((await postAnchor(app, hash, chainName)).statusCode).toBe(202);
  mode = m;
  const started = performance.now();
  try {
    await app.anchorWorker.run(chainName, true);
  } finally {
    mode = 'forward';
  }
  return performance.now() - started;
}

/** After a refused pass, an honest upstream confirms the same request: nothing was lost or poisoned. */
async function confirmsAfterwards(hash: string): Promise<Record<string, unknown>> {
  await app.anchorWorker.run(LOG, true);
  const receipt = await getReceipt(app, hash);
  expect(receipt).toMatchObject({ status: 'confirmed', log_url: frontUrl });
  return receipt;
}

describe('P155: a hostile transparency log cannot flood, redirect or break the anchor worker', () => {
  it('through an honest front the log receipt is confirmed (the fixture is real)', async () => {
    const h = hashOf('upstream honest');
    await passWith('forward', LOG, h);
    expect(await getReceipt(app, h)).toMatchObject({ status: 'confirmed' });
  });

  it('a 48 MiB answer to /add is cut, not buffered: the request stays queued, the failure counted', async () => {
    const h = hashOf('upstream huge');
    const [failures, cut] = [await sendFailures(LOG), cutShort];
    await passWith('huge', LOG, h);
    expect(await getReceipt(app, h)).toMatchObject({ status: 'pending' });
    expect(await sendFailures(LOG)).toBeGreaterThan(failures);
    await expect.poll(() => cutShort - cut, { timeout: 5000 }).toBeGreaterThan(0);
    await confirmsAfterwards(h);
  });

  it('a Content-Length of 500 MB is refused at once, not waited for until the timeout', async () => {
    const h = hashOf('upstream length lie');
    const ms = await passWith('length-lie', LOG, h);
    expect(await getReceipt(app, h)).toMatchObject({ status: 'pending' });
    // The adapter's timeout is 10 s: refusing on the declared length answers long before.
    expect(ms).toBeLessThan(5000);
    await confirmsAfterwards(h);
  });

  it('a redirect of /add to another host is not followed (the token and the hash never reach it)', async () => {
    const h = hashOf('upstream redirect');
    const hits = elsewhere.hits();
    await passWith('redirect', LOG, h);
    expect(elsewhere.hits() - hits).toBe(0);
    expect(await getReceipt(app, h)).toMatchObject({ status: 'pending' });
    await confirmsAfterwards(h);
  });

  it('P168: an HTML page with status 200 in place of the log is an upstream fault: retried, never a failed anchor', async () => {
    const h = hashOf('upstream html');
    const failures = await sendFailures(LOG);
    // More passes than ANCHOR_MAX_ATTEMPTS (3): a refusal would have failed the request for good by now.
    await passWith('html', LOG, h);
    mode = 'html';
    try {
      for (let pass = 0; pass < 3; pass++) await app.anchorWorker.run(LOG, true);
    } finally {
      mode = 'forward';
    }
    expect(await getReceipt(app, h)).toMatchObject({ status: 'pending' });
    expect(await sendFailures(LOG)).toBeGreaterThanOrEqual(failures + 4);
    await confirmsAfterwards(h);
  });
});

/** Appends `hash` while the log answers `value` as its time; the receipt after two such passes. */
async function appendWithTime(hash: string, value: unknown): Promise<Record<string, unknown>> {
  timestamp = value;
  await passWith('timestamp', LOG, hash);
  mode = 'timestamp';
  try {
    await app.anchorWorker.run(LOG, true);
  } finally {
    mode = 'forward';
  }
  return await getReceipt(app, hash);
}

describe('P184: the time a log reports is an RFC 3339 time or a bounded number, or the answer is malformed', () => {
  it.each([
    ['a timestamp no date can hold', 1e300],
    ['year 275760 in milliseconds', 8.64e15],
    ['before year 0 in seconds', -1e11 + 1],
    ['an extended year', '+275760-09-13T00:00:00.000Z'],
    ['a five-digit year', '10000-01-01T00:00:00Z'],
    ['a time that is UTC year 10000', '9999-12-31T23:30:00-01:00'],
    ['prose Date.parse reads', 'March 7, 2026'],
    ['a date alone', '2026-03-07'],
    ['a year alone', '2026'],
    ['February 30th', '2026-02-30T00:00:00Z'],
    ['hour 24', '2026-03-07T24:00:00Z'],
    ['no zone', '2026-03-07T12:00:00'],
    ['a leap second in the middle of a day', '2026-03-07T12:30:60Z'],
    ['a boolean', true],
    ['an object', { seconds: 1 }],
  ] as const)(
    '%s (%j) is retried as a malformed answer, never written into the receipt',
    async (_what, value) => {
      const h = hashOf(`upstream timestamp ${JSON.stringify(value)}`);
      const failures = await sendFailures(LOG);
      const receipt = await appendWithTime(h, value);
      expect(receipt).toMatchObject({ status: 'pending' });
      expect(await sendFailures(LOG)).toBeGreaterThanOrEqual(failures + 2);
      const confirmed = await confirmsAfterwards(h);
      expect(confirmed['anchored_at']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    },
  );

  it.each([
    ['an RFC 3339 time with an offset', '2026-03-07T12:00:00+05:30', '2026-03-07T06:30:00.000Z'],
    ['lower-case separators', '2026-03-07t12:00:00.5z', '2026-03-07T12:00:00.500Z'],
    ['a leap second, read on its earliest side', '2016-12-31T23:59:60Z', '2016-12-31T23:59:59.999Z'],
    ['seconds since the epoch', 1_772_884_800, '2026-03-07T12:00:00.000Z'],
    ['milliseconds since the epoch', 1_772_884_800_123, '2026-03-07T12:00:00.123Z'],
    ['the last millisecond of year 9999', '9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
    // P202: what the schemas' date-time accepts, read by core's one checker (before, the adapter's own refused these).
    ['an offset without its colon', '2026-03-07T12:00:00+0530', '2026-03-07T06:30:00.000Z'],
    ['an offset of whole hours', '2026-03-07T12:00:00+05', '2026-03-07T07:00:00.000Z'],
    ['a tab between date and time', '2026-03-07\t12:00:00Z', '2026-03-07T12:00:00.000Z'],
    [
      'a leap second after a space, read on its earliest side',
      '2016-12-31 23:59:60Z',
      '2016-12-31T23:59:59.999Z',
    ],
  ] as const)('%s (%j) is the receipt time', async (_what, value, expected) => {
    const h = hashOf(`upstream timestamp ok ${JSON.stringify(value)}`);
    timestamp = value;
    await passWith('timestamp', LOG, h);
    expect(await getReceipt(app, h)).toMatchObject({ status: 'confirmed', anchored_at: expected });
  });

  it('no timestamp at all (a log that does not say) gives a receipt without anchored_at', async () => {
    const h = hashOf('upstream timestamp absent');
    timestamp = undefined;
    await passWith('timestamp', LOG, h);
    const receipt = await getReceipt(app, h);
    expect(receipt).toMatchObject({ status: 'confirmed' });
    expect(receipt['anchored_at']).toBeUndefined();
  });
});

describe('P155: a hostile EVM JSON-RPC cannot redirect the anchor writes', () => {
  it('a redirect of eth_sendRawTransaction to another host is not followed', async () => {
    const h = hashOf('upstream evm redirect');
    const hits = elsewhere.hits();
    await passWith('redirect', 'ethereum', h);
    expect(elsewhere.hits() - hits).toBe(0);
    expect((await getReceipt(app, h))['status']).not.toBe('confirmed');
  });
});

describe('P155: a hostile Esplora explorer cannot flood or redirect the Bitcoin writes', () => {
  it('a 48 MiB answer to the wallet UTXO query is cut: nothing is signed or broadcast, the request stays queued', async () => {
    const h = hashOf('upstream btc huge');
    const [broadcasts, cut] = [esplora.broadcasts.length, cutShort];
    expect((await postAnchor(app, h, 'bitcoin')).statusCode).toBe(202);
    btcMode = 'huge-utxo';
    await app.anchorWorker.run('bitcoin', true).catch(() => undefined);
    btcMode = 'forward';
    expect(esplora.broadcasts.length).toBe(broadcasts);
    expect((await getReceipt(app, h))['tx_id']).toBeUndefined();
    await expect.poll(() => cutShort - cut, { timeout: 5000 }).toBeGreaterThan(0);
  });

  it('a redirect of POST /tx to another host is not followed (the signed transaction never reaches it)', async () => {
    const h = hashOf('upstream btc redirect');
    const hits = elsewhere.hits();
    expect((await postAnchor(app, h, 'bitcoin')).statusCode).toBe(202);
    btcMode = 'redirect-tx';
    await app.anchorWorker.run('bitcoin', true).catch(() => undefined);
    btcMode = 'forward';
    expect(elsewhere.hits() - hits).toBe(0);
  });
});

describe('P168: ANCHOR_UPSTREAM_TIMEOUT_MS bounds every exchange with a chain API', () => {
  let shortTarget: StoreTarget;
  let shortApp: FastifyInstance;

  beforeAll(async () => {
    shortTarget = await createStoreTarget('sqlite', 'anchor-upstream-timeout');
    shortApp = await testApp(
      {
        TL_URL: frontUrl,
        TL_TOKEN: LOG_TOKEN,
        BATCH_INTERVAL_MS: '0',
        ANCHOR_UPSTREAM_TIMEOUT_MS: '1000',
      },
      await shortTarget.open(),
    );
  });

  afterAll(async () => {
    await shortApp?.close();
    await shortTarget?.cleanup();
  });

  it('a log that stalls on /add is given up after the configured 1 s, not the default 10 s; the request stays queued', async () => {
    const h = hashOf('upstream stall short timeout');
    expect((await postAnchor(shortApp, h, LOG)).statusCode).toBe(202);
    mode = 'stall';
    const started = performance.now();
    try {
      await shortApp.anchorWorker.run(LOG, true);
    } finally {
      mode = 'forward';
    }
    const ms = performance.now() - started;
    expect(ms).toBeGreaterThanOrEqual(900);
    expect(ms).toBeLessThan(5000);
    expect(await getReceipt(shortApp, h)).toMatchObject({ status: 'pending' });
    await shortApp.anchorWorker.run(LOG, true);
    expect(await getReceipt(shortApp, h)).toMatchObject({ status: 'confirmed' });
  }, 30_000);
});
