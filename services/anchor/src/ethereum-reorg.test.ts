// A reorganisation on a local EVM node (ganache evm_snapshot / evm_revert): the block holding a confirmed anchor
// leaves the chain, the receipt goes back to pending, the same signed transaction is sent again and the anchor
// ends confirmed in the new chain. Issue 18 item 5; DECISIONS D19.
import { verifyAnchorReceipt } from '@proto/clients';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getReceipt, hashOf, postAnchor } from './testing/app.ts';
import { type EvmAnchorService, startEvmAnchorService } from './testing/evm-anchor-service.ts';
import type { LocalChain } from './testing/ganache.ts';

let chain: LocalChain;
let evm: EvmAnchorService;
let app: FastifyInstance;

beforeAll(async () => {
  evm = await startEvmAnchorService('anchor-evm-reorg', { ANCHOR_REORG_WATCH_DEPTH: '20' });
  ({ chain, app } = evm);
});

afterAll(async () => {
  await evm?.close();
});

describe('a reorganisation on an EVM chain', () => {
  it('a confirmed anchor whose block is reverted goes back to pending, is re-sent and ends confirmed', async () => {
    const h = hashOf('evm reorg');
    await postAnchor(app, h, 'ethereum');
    const fork = await chain.rpc('evm_snapshot');
    await app.anchorWorker.run('ethereum', true);
    await chain.mine(2);
    await app.anchorWorker.run('ethereum', true);
    const confirmed = await getReceipt(app, h);
    expect(confirmed).toMatchObject({ status: 'confirmed', confirmations: 3 });
    const txId = confirmed['tx_id'] as string;
    const oldBlock = confirmed['block_number'] as number;

    // The chain from before the write wins with a longer branch of empty blocks.
    expect(await chain.rpc('evm_revert', [fork])).toBe(true);
    await chain.mine(5);
    expect(await chain.rpc('eth_getTransactionReceipt', [txId])).toBeNull();
    expect(await verifyAnchorReceipt(confirmed, h, { evmRpc: chain.url, minConfirmations: 3 })).toMatchObject(
      { status: 'fail' },
    );

    await app.anchorWorker.run('ethereum', true);
    expect(await getReceipt(app, h)).toMatchObject({ status: 'pending', tx_id: txId, confirmations: 0 });
    expect(await chain.rpc('eth_getTransactionReceipt', [txId])).toBeNull();
    // The next pass sends the same signed bytes (same nonce) again; ganache mines them at once, above the old block.
    await app.anchorWorker.run('ethereum', true);
    expect(await chain.rpc('eth_getTransactionReceipt', [txId])).not.toBeNull();
    expect(await getReceipt(app, h)).toMatchObject({ status: 'submitted', tx_id: txId });
    await app.anchorWorker.run('ethereum', true);
    const resent = await getReceipt(app, h);
    expect(resent).toMatchObject({ status: 'submitted', tx_id: txId, confirmations: 1 });
    expect(resent['block_number'] as number).toBeGreaterThan(oldBlock);

    await chain.mine(2);
    await app.anchorWorker.run('ethereum', true);
    const final = await getReceipt(app, h);
    expect(final).toMatchObject({ status: 'confirmed', confirmations: 3, tx_id: txId });
    expect(await verifyAnchorReceipt(final, h, { evmRpc: chain.url, minConfirmations: 3 })).toMatchObject({
      status: 'pass',
      kind: 'evm',
    });
  });

  it('a confirmed anchor keeps being watched until ANCHOR_REORG_WATCH_DEPTH, then is left alone', async () => {
    const h = hashOf('evm deep');
    await postAnchor(app, h, 'ethereum');
    await app.anchorWorker.run('ethereum', true);
    await chain.mine(4);
    await app.anchorWorker.run('ethereum', true);
    expect(await getReceipt(app, h)).toMatchObject({ status: 'confirmed', confirmations: 5 });
    await chain.mine(20);
    await app.anchorWorker.run('ethereum', true);
    expect(await getReceipt(app, h)).toMatchObject({ status: 'confirmed', confirmations: 25 });
    const watched = await app.anchorStore.anchor.shallowConfirmed('ethereum', 20);
    expect(watched.map((b) => b.id)).not.toContain((await app.anchorStore.anchor.latest(h))?.batch?.id);
  });
});
