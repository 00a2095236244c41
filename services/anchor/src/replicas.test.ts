// Several replicas on one database anchoring on one EVM chain: requests spread over both, workers racing; every hash
// lands in exactly one batch and every batch root on chain exactly once. docs/architecture.md §4 (SKIP LOCKED), D19.

import { verifyAnchorReceipt } from '@proto/clients';
import type { Store } from '@proto/store';
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANCHORED_EVENT_TOPIC0 } from './core.ts';
import { getReceipt, hashOf, postAnchor, testApp } from './testing/app.ts';
import { evmEnv, startChainWithContract } from './testing/evm-chain.ts';
import type { LocalChain } from './testing/ganache.ts';

let chain: LocalChain;
let contract: string;

beforeAll(async () => {
  ({ chain, contract } = await startChainWithContract());
});
afterAll(async () => {
  await chain?.close();
});

describe.each(dialectsUnderTest())('two replicas on %s', (dialect) => {
  let target: StoreTarget;
  const apps: FastifyInstance[] = [];

  beforeAll(async () => {
    target = await createStoreTarget(dialect, 'anchor-replicas');
  });
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.close()));
    await target.cleanup();
  });

  it('never anchors a hash twice', async () => {
    const options = target.fresh('replicas');
    const stores: Store[] = [await target.open(options), await target.open(options)];
    const env = {
      ...evmEnv(chain.url, contract),
      ETH_CONFIRMATIONS: '1',
      BATCH_MAX: '4',
      BATCH_INTERVAL_MS: '0',
    };
    const [a, b] = [
      await testApp(env, stores[0]!, { workerOwner: `replica-a-${dialect}` }),
      await testApp(env, stores[1]!, { workerOwner: `replica-b-${dialect}` }),
    ];
    apps.push(a, b);
    const fromBlock = `0x${((await chain.blockNumber()) + 1).toString(16)}`;
    const hashes = Array.from({ length: 18 }, (_, i) => hashOf(`${dialect} replica ${i}`));
    // Each hash is posted to both replicas; workers of both run while the requests arrive.
    await Promise.all(
      hashes.map(async (h, i) => {
        await postAnchor(i % 2 === 0 ? a : b, h, 'ethereum');
        await postAnchor(i % 2 === 0 ? b : a, h, 'ethereum');
        if (i % 3 === 0)
          await Promise.all([a.anchorWorker.run('ethereum', true), b.anchorWorker.run('ethereum', true)]);
      }),
    );
    for (let round = 0; round < 3; round++) {
      await Promise.all([a.anchorWorker.run('ethereum', true), b.anchorWorker.run('ethereum', true)]);
    }
    const receipts = await Promise.all(hashes.map((h, i) => getReceipt(i % 2 === 0 ? b : a, h)));
    expect(receipts.every((r) => r['status'] === 'confirmed')).toBe(true);
    const roots = new Set(receipts.map((r) => r['batch_root'] as string));
    const events = (await chain.rpc('eth_getLogs', [
      { address: contract, fromBlock, toBlock: 'latest', topics: [ANCHORED_EVENT_TOPIC0] },
    ])) as { topics: string[] }[];
    expect(events.map((e) => e.topics[1]!.slice(2)).sort()).toEqual([...roots].sort());
    expect(receipts.reduce((n, r) => n + ((r['leaf_index'] as number) === 0 ? 1 : 0), 0)).toBe(roots.size);
    for (const [i, r] of receipts.entries()) {
      expect((await verifyAnchorReceipt(r, hashes[i]!, { evmRpc: chain.url })).status).toBe('pass');
    }
  });
});
