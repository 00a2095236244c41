// P500: with ANCHOR_REORG_WATCH_DEPTH at its default, a confirmed EVM anchor is watched (and its receipt's
// `confirmations` reported) until the chain's final depth (P462's table: evm 64), not only twice ETH_CONFIRMATIONS.
// The transparency log follows its root anchors until the receipt reports that depth (P463); with the watch ending at
// 24 on Ethereum the receipt never got there, and the log polled each anchor to its 32-poll cap. A real local EVM
// node, the anchor service in-process over HTTP.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getReceipt, hashOf, postAnchor } from './testing/app.ts';
import { type EvmAnchorService, startEvmAnchorService } from './testing/evm-anchor-service.ts';
import type { LocalChain } from './testing/ganache.ts';

let chain: LocalChain;
let evm: EvmAnchorService;
let app: FastifyInstance;

beforeAll(async () => {
  // ETH_CONFIRMATIONS 3: twice that is 6, far below the evm final depth of 64.
  evm = await startEvmAnchorService('anchor-watch-final-depth');
  ({ chain, app } = evm);
});

afterAll(async () => {
  await evm?.close();
});

describe('P500: the default reorganisation watch reaches the chain final depth', () => {
  it('reports confirmations past twice ETH_CONFIRMATIONS up to 64, then leaves the anchor alone', async () => {
    const h = hashOf('evm watched to final depth');
    await postAnchor(app, h, 'ethereum');
    await app.anchorWorker.run('ethereum', true);
    await chain.mine(4);
    await app.anchorWorker.run('ethereum', true);
    expect(await getReceipt(app, h)).toMatchObject({ status: 'confirmed', confirmations: 5 });
    await chain.mine(35);
    await app.anchorWorker.run('ethereum', true);
    expect(await getReceipt(app, h)).toMatchObject({ status: 'confirmed', confirmations: 40 });
    // Before: watched only while under 6 confirmations, so the receipt stayed at the 40 of its last check.
    await chain.mine(30);
    await app.anchorWorker.run('ethereum', true);
    expect((await getReceipt(app, h))['confirmations']).toBeGreaterThanOrEqual(64);
    const batchId = (await app.anchorStore.anchor.latest(h))?.batch?.id;
    expect((await app.anchorStore.anchor.shallowConfirmed('ethereum', 64)).map((b) => b.id)).not.toContain(
      batchId,
    );
  });
});
