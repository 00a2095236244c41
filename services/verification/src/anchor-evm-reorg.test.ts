// P393: POST /verify remembered an anchor `pass` for ANCHOR_VERIFY_CACHE_TTL_MS (10 min) however shallow it was: a
// reorganisation that removed the anchoring transaction right after a pass at 2 confirmations went unnoticed, and
// /verify kept answering `anchor: pass` for a transaction the chain no longer has. Now a pass with fewer than
// ANCHOR_VERIFY_CACHE_FINAL_CONFIRMATIONS confirmations is kept only for ANCHOR_VERIFY_CACHE_RETRY_TTL_MS. The real
// anchor service writes the receipt on a local EVM node (ganache); the real verification service reads the chain
// through ANCHOR_VERIFY_ETH_RPC_URL; the reorganisation is evm_snapshot / evm_revert and a longer empty branch.
import { confirmedEvmReceipt, type LocalChain, startLocalChain } from '@proto/anchor/testing';
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postVerify, type RunningApp, sampleBundle, startApp } from './test-support.ts';

let chain: LocalChain;
let target: StoreTarget;
let anchor: FastifyInstance;
let verifier: RunningApp;
let receipt: Record<string, unknown>;
let fork: unknown;
const anchored = sampleBundle({});
const RETRY_TTL_MS = 500;

beforeAll(async () => {
  [chain, target] = await Promise.all([
    startLocalChain(),
    createStoreTarget('sqlite', 'verification-evm-reorg'),
  ]);
  fork = await chain.rpc('evm_snapshot');
  ({ anchor, receipt } = await confirmedEvmReceipt(chain, await target.open(), anchored.bundleHash, 2));
  verifier = await startApp({
    VERIFY_WORKERS: '1',
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    ANCHOR_VERIFY_ETH_RPC_URL: JSON.stringify({ ethereum: chain.url }),
    ANCHOR_VERIFY_MIN_CONFIRMATIONS: '2',
    // The defaults otherwise: final answers kept 10 min.
    ANCHOR_VERIFY_CACHE_RETRY_TTL_MS: String(RETRY_TTL_MS),
  });
});

afterAll(async () => {
  await verifier?.close();
  await anchor?.close();
  await target?.cleanup();
  await chain?.close();
});

describe('P393: an Ethereum anchor receipt whose transaction a reorganisation removed', () => {
  it('passes while the chain has it, and is no longer passed once the chain has dropped it', async () => {
    const body = { signed_bundle: anchored.signed_bundle, anchor_receipt: receipt };
    const before = await postVerify(verifier.url, body);
    expect(before.json, JSON.stringify(before.json)).toMatchObject({
      verified: true,
      checks: { anchor: 'pass' },
    });

    expect(await chain.rpc('evm_revert', [fork])).toBe(true);
    await chain.mine(5);
    expect(await chain.rpc('eth_getTransactionReceipt', [receipt['tx_id']])).toBeNull();

    await new Promise((r) => setTimeout(r, RETRY_TTL_MS + 200));
    // Before P393: still `anchor: pass` (the pass at 2 confirmations was remembered for 10 minutes).
    const after = await postVerify(verifier.url, body);
    expect(after.json['checks'], JSON.stringify(after.json)).toMatchObject({ anchor: 'fail' });
    expect(after.json['verified']).toBe(false);
  });
});
