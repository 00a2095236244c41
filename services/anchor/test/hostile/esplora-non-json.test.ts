// The Bitcoin adapter's Esplora explorer answering something that is not JSON (P177): a proxy's or captive
// portal's page with status 200, or an answer cut short. That is the explorer unavailable (a TransientError: the
// pass is logged at warn as the chain unreachable and counted, the request stays queued), not a broken pass logged
// at error. A local node:http front sits in front of the test Esplora server and answers HTML on the path aimed at.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { getReceipt, hashOf, postAnchor } from '../../src/testing/app.ts';
import type { EsploraTestServer } from '../../src/testing/esplora-server.ts';
import { CHAIN, type EsploraBehindFront, startAnchorBehindEsplora } from './testing/esplora-front.ts';
import { unreachableIn } from './testing/evm-front.ts';

let setup: EsploraBehindFront;
let esplora: EsploraTestServer;
let app: FastifyInstance;
let logLines: EsploraBehindFront['logLines'];
/** A path ending the front answers with a page instead of the explorer's JSON; undefined: forward everything. */
let pageFor: string | undefined;
let page = '<html><body>Sign in to continue</body></html>';

const failedPasses = () => logLines.filter((l) => l.msg === 'anchor: pass failed');
const unreachable = () => unreachableIn(logLines);

beforeAll(async () => {
  setup = await startAnchorBehindEsplora({
    label: 'anchor-esplora-non-json',
    keyHex: '46'.repeat(32),
    sats: 100_000,
    answer: (request, res) => {
      if (pageFor === undefined || request.method !== 'GET' || !request.url.endsWith(pageFor)) return false;
      res.writeHead(200, { 'content-type': 'text/html' }).end(page);
      return true;
    },
  });
  ({ esplora, app, logLines } = setup);
}, 60_000);

afterAll(async () => {
  await setup?.close();
});

beforeEach(() => {
  pageFor = undefined;
  page = '<html><body>Sign in to continue</body></html>';
  logLines.length = 0;
});

async function passWhileAnswering(path: string): Promise<void> {
  pageFor = path;
  try {
    await app.anchorWorker.run(CHAIN, true);
  } finally {
    pageFor = undefined;
  }
}

function expectTransient(what: string): void {
  expect(failedPasses()).toEqual([]);
  expect(unreachable().length).toBeGreaterThan(0);
  expect(JSON.stringify(unreachable())).toContain(what);
}

describe('P177: an Esplora answer that is not JSON is the explorer unavailable, retried', () => {
  it('an HTML page for the wallet UTXO query: nothing is signed, the pass is the chain unreachable', async () => {
    const h = hashOf('esplora html utxo');
    const broadcasts = esplora.broadcasts.length;
    expect((await postAnchor(app, h, CHAIN)).statusCode).toBe(202);
    await passWhileAnswering('/utxo');
    expectTransient('/utxo');
    expect(esplora.broadcasts.length).toBe(broadcasts);
    expect((await getReceipt(app, h))['status']).toBe('pending');
    // The explorer answers again: the same request is written and confirmed.
    await app.anchorWorker.run(CHAIN, true);
    esplora.mine(1);
    await app.anchorWorker.run(CHAIN, true);
    expect(await getReceipt(app, h)).toMatchObject({ status: 'confirmed' });
  });

  it('an answer cut short for a sent transaction status: still unreachable, then confirmed', async () => {
    const h = hashOf('esplora truncated status');
    expect((await postAnchor(app, h, CHAIN)).statusCode).toBe(202);
    await app.anchorWorker.run(CHAIN, false);
    esplora.mine(1);
    logLines.length = 0;
    page = '{"confirmed":true,"block_hei';
    await passWhileAnswering('/status');
    expectTransient('/status');
    expect((await getReceipt(app, h))['status']).toBe('submitted');
    await app.anchorWorker.run(CHAIN, true);
    expect(await getReceipt(app, h)).toMatchObject({ status: 'confirmed' });
  });
});
