// POST /verify with an Ethereum receipt made by the real anchor service on a local EVM node (ganache), read
// through ANCHOR_VERIFY_ETH_RPC_URL: pass, and a receipt the chain contradicts fails. DECISIONS D12, D19.

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
const anchored = sampleBundle({});

beforeAll(async () => {
  [chain, target] = await Promise.all([startLocalChain(), createStoreTarget('sqlite', 'verification-evm')]);
  ({ anchor, receipt } = await confirmedEvmReceipt(chain, await target.open(), anchored.bundleHash, 2));
  verifier = await startApp({
    VERIFY_WORKERS: '1',
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    ANCHOR_VERIFY_ETH_RPC_URL: JSON.stringify({ ethereum: chain.url }),
    ANCHOR_VERIFY_MIN_CONFIRMATIONS: '2',
  });
});

afterAll(async () => {
  await verifier?.close();
  await anchor?.close();
  await target?.cleanup();
  await chain?.close();
});

describe('an Ethereum anchor receipt (D19) read through the operator’s RPC', () => {
  it('passes the receipt of the anchored bundle', async () => {
    expect(receipt).toMatchObject({
      chain: 'ethereum',
      status: 'confirmed',
      bundle_hash: anchored.bundleHash,
    });
    const { json } = await postVerify(verifier.url, {
      signed_bundle: anchored.signed_bundle,
      anchor_receipt: receipt,
    });
    expect(json, JSON.stringify(json)).toMatchObject({ verified: true, checks: { anchor: 'pass' } });
  });

  it('fails a receipt whose block the chain contradicts', async () => {
    const { json } = await postVerify(verifier.url, {
      signed_bundle: anchored.signed_bundle,
      anchor_receipt: { ...receipt, block_number: (receipt['block_number'] as number) + 1 },
    });
    expect(json['verified']).toBe(false);
    expect(json['checks']).toMatchObject({ anchor: 'fail' });
    expect(json['error_details']).toEqual([expect.objectContaining({ code: 'PROTO-E202', check: 'anchor' })]);
  });
});
