// The receipt verifier's handling of its sources over real HTTP on 127.0.0.1: unreachable or failing sources give
// `skipped` with a retryable code, unconfigured ones `skipped`, malformed receipts `fail`. DECISIONS D19, D12.
import { createHash } from 'node:crypto';
import { buildAnchorBatch } from '@proto/core';
import { answerJson, type HostileFront, startHostileFront } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyAnchorReceipt } from './anchor-client.ts';

const hash = (t: string) => `sha256:${createHash('sha256').update(t).digest('hex')}`;
const h = hash('client');
const tree = buildAnchorBatch([h]);
const root = tree.ok ? tree.value.root : '';
const evm = {
  chain: 'ethereum',
  contract: `0x${'12'.repeat(20)}`,
  tx_id: `0x${'34'.repeat(32)}`,
  bundle_hash: h,
  status: 'pending',
  batch_root: root,
  batch_size: 1,
  leaf_index: 0,
  merkle_path: [],
};

let front: HostileFront;
let base: string;
beforeAll(async () => {
  front = await startHostileFront((request, res) => {
    if (request.url === '/500') {
      res.writeHead(500).end('boom');
      return;
    }
    // A JSON-RPC endpoint that refuses every method.
    answerJson(res, 200, { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'method not found' } });
  });
  base = front.url;
});
afterAll(async () => {
  await front.close();
});

describe('verifyAnchorReceipt sources', () => {
  it('a closed port, an HTTP 500 or an RPC error give skipped, retryable, E701', async () => {
    for (const evmRpc of ['http://127.0.0.1:9', `${base}/500`, base]) {
      const check = await verifyAnchorReceipt(evm, h, { evmRpc, timeoutMs: 2000 });
      expect(check, evmRpc).toMatchObject({
        status: 'skipped',
        retryable: true,
        code: 'CIRCUIT_OPEN',
        kind: 'evm',
      });
      expect(check.warnings[0]).toBe(check.message);
    }
    const btc = { chain: 'bitcoin', network: 'regtest', tx_id: 'ab'.repeat(32), bundle_hash: h };
    expect(await verifyAnchorReceipt(btc, h, { esplora: `${base}/500` })).toMatchObject({
      status: 'skipped',
      retryable: true,
    });
  });

  it('no source for the chain, network or log gives skipped, not retryable', async () => {
    expect(await verifyAnchorReceipt(evm, h, { evmRpc: { base: base } })).toMatchObject({
      status: 'skipped',
      retryable: false,
    });
    const btc = { chain: 'bitcoin', network: 'testnet', tx_id: 'ab'.repeat(32) };
    expect(await verifyAnchorReceipt(btc, h, { esplora: { mainnet: base } })).toMatchObject({
      status: 'skipped',
      retryable: false,
    });
    const log = { log_url: `${base}/log`, log_index: 0, merkle_proof: [] };
    expect(await verifyAnchorReceipt(log, h, { logs: ['http://127.0.0.1:1/other'] })).toMatchObject({
      status: 'skipped',
    });
  });

  it('a pending receipt without a transaction is skipped (retry later); a malformed one fails E002', async () => {
    const pending = { chain: 'ethereum', contract: evm.contract, bundle_hash: h, status: 'pending' };
    expect(await verifyAnchorReceipt(pending, h, { evmRpc: base })).toMatchObject({
      status: 'skipped',
      retryable: true,
      code: 'BACKPRESSURE',
    });
    expect(
      await verifyAnchorReceipt({ chain: 'ethereum', contract: 'nope' }, h, { evmRpc: base }),
    ).toMatchObject({
      status: 'fail',
      code: 'ARTIFACT_SCHEMA_INVALID',
    });
    expect(await verifyAnchorReceipt(evm, 'sha256:short', { evmRpc: base })).toMatchObject({
      status: 'fail',
    });
  });
});
