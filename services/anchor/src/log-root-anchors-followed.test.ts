// The transparency log follows every pending root anchor to confirmed, not only its newest (issue 18 leftovers,
// P63): two signed roots anchored through this service (in-process, over HTTP) on a local EVM node (ganache)
// both end confirmed, oldest first when a round may ask about one only, and their receipts verify on the chain.
// A poll that learns nothing pushes that anchor's next poll back.
import { verifyAnchorReceipt } from '@proto/clients';
import { pollBackoffMs, RootAnchorer } from '@proto/transparency-log';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EvmAnchorService, startEvmAnchorService } from './testing/evm-anchor-service.ts';
import type { LocalChain } from './testing/ganache.ts';
import { buildRootAnchoringLog, ROOT_ANCHORING_LOG_TOKEN } from './testing/log-server.ts';

const LOG_TOKEN = ROOT_ANCHORING_LOG_TOKEN;
const FOREVER = new Date('9999-12-31T00:00:00Z'); // stored times compare as ISO text
let chain: LocalChain;
let evm: EvmAnchorService;
let anchor: FastifyInstance;
let anchorUrl: string;
let log: Awaited<ReturnType<typeof buildRootAnchoringLog>>;

beforeAll(async () => {
  evm = await startEvmAnchorService('anchor-log-roots-evm');
  ({ chain, app: anchor } = evm);
  anchorUrl = await anchor.listen({ port: 0, host: '127.0.0.1' });
  log = await buildRootAnchoringLog({ anchorUrl, chain: 'ethereum', label: 'anchor-log-roots-evm' });
});

afterAll(async () => {
  await log?.close();
  await evm?.close();
});

async function addLeaves(from: number, count: number): Promise<void> {
  for (let i = from; i < from + count; i++) {
    const res = await log.inject({
      method: 'POST',
      url: '/add',
      headers: { authorization: `Bearer ${LOG_TOKEN}` },
      payload: { bundle_hash: `sha256:${i.toString(16).padStart(64, '0')}` },
    });
    expect(res.statusCode).toBeLessThan(300);
  }
}

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('the log follows every pending root anchor', () => {
  it('two roots anchored while pending both end confirmed, oldest first, and verify on the chain', async () => {
    const { checkpointer, anchorer, store } = log.transparencyLog;
    if (anchorer === undefined) throw new Error('root anchoring must be on');
    const pending = async () => (await store.log.dueRootAnchors(FOREVER, 100)).map((r) => r.size);

    // Root of size 3: requested, then written (mined at once, 1 of 3 confirmations): submitted, still pending.
    await addLeaves(0, 3);
    await checkpointer.tick();
    await anchorer.tick();
    await anchor.anchorWorker.run('ethereum', true);
    // Root of size 6 the same way: now the log's newest anchor; the older one is still pending.
    await addLeaves(3, 3);
    await checkpointer.tick();
    await anchorer.tick();
    await anchor.anchorWorker.run('ethereum', true);
    await anchorer.tick();
    expect(await pending()).toEqual([3, 6]);

    // The chain buries both writes past ETH_CONFIRMATIONS; the anchor service sees them confirmed.
    await chain.mine(4);
    await anchor.anchorWorker.run('ethereum', true);

    // A round that may ask about one anchor asks about the oldest; the next round about the other. (Its clock
    // is a day ahead, past the backoff the fruitless poll of size 3 above earned.)
    const oneByOne = new RootAnchorer({
      repository: store.log,
      url: anchorUrl,
      intervalMs: 60_000,
      timeoutMs: 5_000,
      clock: () => new Date(Date.now() + 86_400_000),
      log: silent,
      pollsPerRound: 1,
    });
    await oneByOne.tick();
    expect(await pending()).toEqual([6]);
    await anchorer.tick();
    expect(await pending()).toEqual([]);

    for (const size of [3, 6]) {
      const checkpoint = await store.log.checkpoint(size);
      const bundleHash = `sha256:${Buffer.from(checkpoint?.root as Uint8Array).toString('hex')}`;
      const res = await anchor.inject({ url: `/anchor/${bundleHash}` });
      const receipt = (res.json() as { anchor_receipt: Record<string, unknown> }).anchor_receipt;
      expect(receipt).toMatchObject({ status: 'confirmed' });
      expect(await verifyAnchorReceipt(receipt, bundleHash, { evmRpc: chain.url })).toMatchObject({
        status: 'pass',
      });
    }
    expect((await log.inject({ url: '/root/signed' })).json().root_anchor).toMatchObject({
      tree_size: 6,
      status: 'confirmed',
    });
  });

  it('a poll that learns nothing pushes the next one back, doubling up to the cap', async () => {
    const { checkpointer, anchorer, store } = log.transparencyLog;
    if (anchorer === undefined) throw new Error('root anchoring must be on');
    await addLeaves(6, 2);
    await checkpointer.tick();
    await anchorer.tick(); // requested: pending, nothing on chain yet (the anchor worker has not run)
    let now = new Date('2030-01-01T00:00:00Z');
    const patient = new RootAnchorer({
      repository: store.log,
      url: anchorUrl,
      intervalMs: 1_000,
      timeoutMs: 5_000,
      clock: () => now,
      log: silent,
      maxPollBackoffMs: 3_000,
    });
    const eight = async () => (await store.log.dueRootAnchors(FOREVER, 100)).find((r) => r.size === 8);
    await patient.tick();
    expect(await eight()).toMatchObject({ polls: 1, nextPollAt: '2030-01-01T00:00:01.000Z' });
    await patient.tick(); // not due yet: not asked, not counted
    expect(await eight()).toMatchObject({ polls: 1 });
    now = new Date('2030-01-01T00:00:01Z');
    await patient.tick();
    expect(await eight()).toMatchObject({ polls: 2, nextPollAt: '2030-01-01T00:00:03.000Z' });
    now = new Date('2030-01-01T00:00:03Z');
    await patient.tick();
    expect(await eight()).toMatchObject({ polls: 3, nextPollAt: '2030-01-01T00:00:06.000Z' });
    expect([0, 1, 2, 3, 40].map((n) => pollBackoffMs(n, 1_000, 3_000))).toEqual([
      1_000, 2_000, 3_000, 3_000, 3_000,
    ]);

    // Once written and buried, the next due poll finds it confirmed.
    await anchor.anchorWorker.run('ethereum', true);
    await chain.mine(3);
    await anchor.anchorWorker.run('ethereum', true);
    now = new Date('2030-01-01T00:00:06Z');
    await patient.tick();
    expect(await eight()).toBeUndefined();
  });
});
