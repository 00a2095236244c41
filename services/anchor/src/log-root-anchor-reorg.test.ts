// P392: the log anchors its signed roots through this service and followed each receipt only while it was pending:
// once it read `confirmed` it never asked again. A reorganisation that removes the transaction (the anchor service
// notices it and goes back to pending, P52) left the log's `/root/signed` `root_anchor` at `confirmed` with a
// transaction the chain no longer has. Now a confirmed root anchor is asked about again, with the same backoff, for
// ROOT_ANCHOR_CONFIRMED_POLLS polls. The real log and the real anchor service over HTTP, on a local EVM chain (ganache
// evm_snapshot / evm_revert); the receipt checked against the chain as a verifier would.
import { verifyAnchorReceipt } from '@proto/clients';
import { listenOnPort0 } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EvmAnchorService, startEvmAnchorService } from './testing/evm-anchor-service.ts';
import type { LocalChain } from './testing/ganache.ts';
import { buildRootAnchoringLog, ROOT_ANCHORING_LOG_TOKEN } from './testing/log-server.ts';

let chain: LocalChain;
let evm: EvmAnchorService;
let anchor: FastifyInstance;
let log: Awaited<ReturnType<typeof buildRootAnchoringLog>>;
let logUrl: string;

beforeAll(async () => {
  evm = await startEvmAnchorService('anchor-log-root-reorg', { ANCHOR_REORG_WATCH_DEPTH: '20' });
  ({ chain, app: anchor } = evm);
  const anchorUrl = await anchor.listen({ port: 0, host: '127.0.0.1' });
  log = await buildRootAnchoringLog({ anchorUrl, chain: 'ethereum', label: 'anchor-log-root-reorg' });
  logUrl = (await listenOnPort0(log)).url;
});

afterAll(async () => {
  await log?.close();
  await evm?.close();
});

async function rootAnchor(): Promise<Record<string, unknown>> {
  const res = await fetch(`${logUrl}/root/signed`);
  return ((await res.json()) as { root_anchor: Record<string, unknown> }).root_anchor;
}

describe("P392: the log's root anchor after a reorganisation", () => {
  it('does not stay confirmed with a transaction the chain no longer has', async () => {
    const { checkpointer, anchorer } = log.transparencyLog;
    if (anchorer === undefined) throw new Error('root anchoring must be on');
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${logUrl}/add`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ROOT_ANCHORING_LOG_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ bundle_hash: `sha256:${String(i + 4).repeat(64)}` }),
      });
      expect(res.status).toBeLessThan(300);
    }
    await checkpointer.tick();
    await anchorer.tick();
    expect(await rootAnchor()).toMatchObject({ tree_size: 3, status: 'pending', chain: 'ethereum' });

    // Written, then buried to ETH_CONFIRMATIONS: the log reads confirmed.
    const fork = await chain.rpc('evm_snapshot');
    await anchor.anchorWorker.run('ethereum', true);
    await chain.mine(2);
    await anchor.anchorWorker.run('ethereum', true);
    await anchorer.tick();
    const confirmed = await rootAnchor();
    expect(confirmed).toMatchObject({ tree_size: 3, status: 'confirmed' });
    const txId = confirmed['tx_id'] as string;
    expect(txId).toMatch(/^0x[0-9a-f]{64}$/);

    // The chain from before the write wins; the anchor service notices (P52) and reports pending.
    expect(await chain.rpc('evm_revert', [fork])).toBe(true);
    await chain.mine(5);
    expect(await chain.rpc('eth_getTransactionReceipt', [txId])).toBeNull();
    await anchor.anchorWorker.run('ethereum', true);
    const receipt = confirmed['receipt'] as Record<string, unknown>;
    const anchorReceipt = (receipt['anchor_receipt'] ?? receipt) as Record<string, unknown>;
    const rootHash = confirmed['bundle_hash'] as string;
    // A verifier reading the chain refuses the receipt the log served as confirmed.
    expect(
      await verifyAnchorReceipt(anchorReceipt, rootHash, { evmRpc: chain.url, minConfirmations: 3 }),
    ).toMatchObject({ status: 'fail' });

    // Before P392: still `confirmed` with the removed transaction.
    await anchorer.tick();
    const after = await rootAnchor();
    expect(after['status']).toBe('pending');

    // The anchor service sends the same signed bytes again; buried again, the log reads confirmed again.
    await anchor.anchorWorker.run('ethereum', true);
    await anchor.anchorWorker.run('ethereum', true);
    await chain.mine(2);
    await anchor.anchorWorker.run('ethereum', true);
    await anchorer.tick();
    const again = await rootAnchor();
    expect(again).toMatchObject({ status: 'confirmed', tx_id: txId });
    expect(await chain.rpc('eth_getTransactionReceipt', [txId])).not.toBeNull();
    const again_receipt = again['receipt'] as Record<string, unknown>;
    expect(
      await verifyAnchorReceipt(
        (again_receipt['anchor_receipt'] ?? again_receipt) as Record<string, unknown>,
        rootHash,
        { evmRpc: chain.url, minConfirmations: 3 },
      ),
    ).toMatchObject({ status: 'pass' });
  });
});
