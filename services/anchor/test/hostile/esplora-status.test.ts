// P217: what an Esplora explorer says of a mined write becomes the receipt (block_height, anchored_at from
// block_time) and the reorganisation watch (block_hash). An explorer, or whatever answers in its place, could write
// into the record a time no RFC 3339 time can name (year 10000 and past: `+010000-…`), a time past what Date holds
// (a RangeError in the pass), or a height that is no block (negative, a fraction), which counts as deep
// confirmations. Such an answer is the explorer unreliable: a TransientError (the chain unreachable, at warn),
// nothing recorded, and the honest answer then confirms the write. The real service, the test Esplora server behind
// a node:http front that rewrites the JSON of `/tx/<id>/status` once the write is mined.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { getReceipt, hashOf, postAnchor } from '../../src/testing/app.ts';
import type { EsploraTestServer } from '../../src/testing/esplora-server.ts';
import { CHAIN, type EsploraBehindFront, startAnchorBehindEsplora } from './testing/esplora-front.ts';

let setup: EsploraBehindFront;
let esplora: EsploraTestServer;
let app: FastifyInstance;
/** Fields written over a mined transaction's status; undefined: the explorer's own answer. */
let statusOverride: Record<string, unknown> | undefined;
let logLines: EsploraBehindFront['logLines'];

beforeAll(async () => {
  setup = await startAnchorBehindEsplora({
    label: 'anchor-esplora-status',
    keyHex: '47'.repeat(32),
    sats: 1_000_000,
    rewrite: (request, status, text) => {
      if (statusOverride === undefined || !request.url.endsWith('/status') || status !== 200) return text;
      const mined = JSON.parse(text) as Record<string, unknown>;
      return mined['confirmed'] === true ? JSON.stringify({ ...mined, ...statusOverride }) : text;
    },
  });
  ({ esplora, app, logLines } = setup);
}, 60_000);

afterAll(async () => {
  await setup?.close();
});

beforeEach(() => {
  statusOverride = undefined;
  logLines.length = 0;
});

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe('P217: a mined write’s status names a block and a time a receipt can carry, or it is no answer', () => {
  it.each([
    ['block_time in year 10000', { block_time: 253_402_300_800 }],
    ['block_time past what Date holds', { block_time: 1e13 }],
    ['block_time before year 0000', { block_time: -62_167_219_201 }],
    ['a negative block_height', { block_height: -5 }],
    ['a fractional block_height', { block_height: 101.5 }],
    ['a block_hash that is no hash', { block_hash: 'not a hash' }],
  ])('%s: the explorer unreliable, nothing recorded, then confirmed honestly', async (what, override) => {
    const h = hashOf(`esplora status ${what}`);
    expect((await postAnchor(app, h, CHAIN)).statusCode).toBe(202);
    await app.anchorWorker.run(CHAIN, false);
    esplora.mine(1);
    statusOverride = override;
    try {
      await app.anchorWorker.run(CHAIN, true);
    } finally {
      statusOverride = undefined;
    }
    expect(logLines.filter((l) => l.msg === 'anchor: pass failed')).toEqual([]);
    expect(JSON.stringify(logLines)).toContain('malformed');
    const during = await getReceipt(app, h);
    expect(during['status']).toBe('submitted');
    expect(during['block_height']).toBeUndefined();
    await app.anchorWorker.run(CHAIN, true);
    const after = await getReceipt(app, h);
    expect(after).toMatchObject({ status: 'confirmed' });
    expect(after['anchored_at']).toMatch(RFC3339);
    expect(Number.isSafeInteger(after['block_height'])).toBe(true);
  });

  it('the last second of year 9999 is a time a receipt can carry (control)', async () => {
    const h = hashOf('esplora status year 9999');
    expect((await postAnchor(app, h, CHAIN)).statusCode).toBe(202);
    await app.anchorWorker.run(CHAIN, false);
    esplora.mine(1);
    statusOverride = { block_time: 253_402_300_799 };
    try {
      await app.anchorWorker.run(CHAIN, true);
    } finally {
      statusOverride = undefined;
    }
    expect(await getReceipt(app, h)).toMatchObject({
      status: 'confirmed',
      anchored_at: '9999-12-31T23:59:59.000Z',
    });
  });
});
