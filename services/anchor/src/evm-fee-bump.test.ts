// EVM fee bumps (P64) on a local EVM node (ganache) whose miner is stopped, so the anchor write stays pending:
// past ETH_BUMP_AFTER_MS the worker replaces it at the same nonce with a gas price raised by at least 12.5 %,
// and once mined the replacement is the receipt's transaction, confirmed and verified against the chain. The fee
// arithmetic (12.5 %, current estimate, ETH_MAX_FEE_GWEI cap) apart.
import { verifyAnchorReceipt } from '@proto/clients';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import type { FastifyInstance } from 'fastify';
import { parseTransaction } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bumpedFees, cappedFees } from './adapters/evm-fee-bump.ts';
import { getReceipt, hashOf, postAnchor, testApp } from './testing/app.ts';
import { evmEnv, startChainWithContract } from './testing/evm-chain.ts';
import type { LocalChain } from './testing/ganache.ts';

const GWEI = 1_000_000_000n;
let chain: LocalChain;
let target: StoreTarget;
let contract: string;
const apps: FastifyInstance[] = [];

beforeAll(async () => {
  ({ chain, contract } = await startChainWithContract({ hardfork: 'berlin' }));
  target = await createStoreTarget('sqlite', 'anchor-evm-bump');
});

afterAll(async () => {
  for (const app of apps) await app.close();
  await target?.cleanup();
  await chain?.close();
});

async function evmApp(extra: Record<string, string>): Promise<FastifyInstance> {
  const app = await testApp(
    {
      ...evmEnv(chain.url, contract),
      ETH_CONFIRMATIONS: '2',
      BATCH_INTERVAL_MS: '0',
      ...extra,
    },
    await target.open(),
  );
  apps.push(app);
  return app;
}

/** proto_anchor_batches_total{outcome="fee_bumped"} of an app, from its /metrics. */
async function feeBumps(app: FastifyInstance): Promise<number> {
  const text = (await app.inject({ url: '/metrics' })).body;
  const line = text
    .split('\n')
    .find((l) => l.startsWith('proto_anchor_batches_total') && l.includes('fee_bumped'));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

const txOf = async (hash: unknown) =>
  (await chain.rpc('eth_getTransactionByHash', [hash])) as { gasPrice: string; nonce: string } | null;

describe('EVM fee bump against ganache with its miner stopped', () => {
  it('replaces the stuck write (same nonce, +12.5 % or more), and the replacement ends confirmed and verifies', async () => {
    const app = await evmApp({ ETH_BUMP_AFTER_MS: '400' });
    const bundleHash = hashOf('stuck evm write');
    await chain.rpc('miner_stop');
    try {
      expect((await postAnchor(app, bundleHash, 'ethereum')).statusCode).toBe(202);
      await app.anchorWorker.run('ethereum', true);
      const first = await getReceipt(app, bundleHash);
      expect(first).toMatchObject({ status: 'submitted' }); // in the pool, not mined (P50)
      const original = await txOf(first['tx_id']);
      expect(original, 'the write waits in the pool').not.toBeNull();

      await app.anchorWorker.run('ethereum', true); // not due yet
      expect(await feeBumps(app)).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 450));
      await app.anchorWorker.run('ethereum', true);
      const second = await getReceipt(app, bundleHash);
      expect(second['tx_id']).not.toBe(first['tx_id']);
      expect(await feeBumps(app)).toBe(1);
      const replacement = await txOf(second['tx_id']);
      // The replacement is signed with the original's nonce. (ganache 7.9 does not evict the original from its
      // pool: it lists the replacement under the next nonce and mines both, so the node-side replacement itself
      // cannot be shown here; the stored bytes are what a real node would receive.)
      const store = await target.open();
      const [batch] = await store.anchor.batches('ethereum', ['sent']);
      expect(batch?.tx_id).toBe(second['tx_id']);
      expect(parseTransaction(batch?.raw_tx as `0x${string}`).nonce).toBe(Number(original?.nonce));
      expect(batch?.detail).toEqual({ replaces: [first['tx_id']] });
      expect(BigInt(replacement?.gasPrice ?? 0) * 8n).toBeGreaterThanOrEqual(
        BigInt(original?.gasPrice ?? 0) * 9n,
      );
    } finally {
      await chain.rpc('miner_start');
    }
    await chain.mine(2);
    await app.anchorWorker.run('ethereum', true);
    const receipt = await getReceipt(app, bundleHash);
    expect(receipt).toMatchObject({ status: 'confirmed' });
    expect(await verifyAnchorReceipt(receipt, bundleHash, { evmRpc: chain.url })).toMatchObject({
      status: 'pass',
    });
  });

  it('raises every fee by at least 12.5 %, follows a higher estimate, and stops at the cap', () => {
    const cap = 100n * GWEI;
    expect(bumpedFees({ gasPrice: 8n * GWEI }, undefined, cap)).toEqual({ gasPrice: 9n * GWEI });
    expect(bumpedFees({ gasPrice: 8n * GWEI }, { gasPrice: 30n * GWEI }, cap)).toEqual({
      gasPrice: 30n * GWEI,
    });
    expect(bumpedFees({ gasPrice: 8n * GWEI }, { gasPrice: 300n * GWEI }, cap)).toEqual({ gasPrice: cap });
    expect(
      bumpedFees({ gasPrice: 95n * GWEI }, undefined, cap),
      'no room for 12.5 % under the cap',
    ).toBeUndefined();
    expect(bumpedFees({ gasPrice: 1n }, undefined, cap)).toEqual({ gasPrice: 2n });
    expect(bumpedFees({ maxFeePerGas: 16n * GWEI, maxPriorityFeePerGas: 8n * GWEI }, undefined, cap)).toEqual(
      { maxFeePerGas: 18n * GWEI, maxPriorityFeePerGas: 9n * GWEI },
    );
    expect(
      bumpedFees(
        { maxFeePerGas: 16n * GWEI, maxPriorityFeePerGas: 1n * GWEI },
        { maxFeePerGas: 40n * GWEI, maxPriorityFeePerGas: 2n * GWEI },
        cap,
      ),
    ).toEqual({ maxFeePerGas: 40n * GWEI, maxPriorityFeePerGas: 2n * GWEI });
    expect(
      bumpedFees({ maxFeePerGas: 90n * GWEI, maxPriorityFeePerGas: GWEI }, undefined, cap),
    ).toBeUndefined();
  });

  it('a write already at the cap is not replaced: it keeps waiting', async () => {
    const app = await evmApp({ ETH_BUMP_AFTER_MS: '1', ETH_MAX_FEE_GWEI: '1' });
    const bundleHash = hashOf('capped evm write');
    await chain.rpc('miner_stop');
    try {
      expect((await postAnchor(app, bundleHash, 'ethereum')).statusCode).toBe(202);
      await app.anchorWorker.run('ethereum', true);
      const first = await getReceipt(app, bundleHash);
      await new Promise((resolve) => setTimeout(resolve, 5));
      await app.anchorWorker.run('ethereum', true);
      expect((await getReceipt(app, bundleHash))['tx_id']).toBe(first['tx_id']);
      expect(await feeBumps(app)).toBe(0);
    } finally {
      await chain.rpc('miner_start');
    }
    await chain.mine(2);
    await app.anchorWorker.run('ethereum', true);
    expect(await getReceipt(app, bundleHash)).toMatchObject({ status: 'confirmed' });
  });
});

describe('cappedFees (P192): a first write offers at most the cap', () => {
  const cap = 500n * 1_000_000_000n;
  it('a legacy gas price above the cap is the cap; one below is kept', () => {
    expect(cappedFees({ gasPrice: cap * 2000n }, cap)).toEqual({ gasPrice: cap });
    expect(cappedFees({ gasPrice: 7n }, cap)).toEqual({ gasPrice: 7n });
  });
  it('an EIP-1559 fee cap above the cap is the cap, and the tip never exceeds it', () => {
    expect(cappedFees({ maxFeePerGas: cap * 3n, maxPriorityFeePerGas: cap * 2n }, cap)).toEqual({
      maxFeePerGas: cap,
      maxPriorityFeePerGas: cap,
    });
    expect(cappedFees({ maxFeePerGas: 9n, maxPriorityFeePerGas: 2n }, cap)).toEqual({
      maxFeePerGas: 9n,
      maxPriorityFeePerGas: 2n,
    });
  });
});
