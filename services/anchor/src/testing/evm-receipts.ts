// Confirmed Ethereum receipts made by the real anchor service on a local chain, for the verifier's tests that
// check them (D19): the contract deployed, each bundle hash anchored, the blocks mined and the receipts read back.
import type { Store } from '@proto/store';
import type { FastifyInstance } from 'fastify';
import { postAnchor, testApp } from './app.ts';
import { deployContract, evmEnv } from './evm-chain.ts';
import type { LocalChain } from './ganache.ts';

export interface EvmReceipts {
  /** The anchor service that made them (the caller closes it). */
  readonly anchor: FastifyInstance;
  /** One receipt per bundle hash, in the order given. */
  readonly receipts: Record<string, unknown>[];
}

export async function confirmedEvmReceipts(
  chain: LocalChain,
  store: Store,
  bundleHashes: readonly string[],
  confirmations = 1,
): Promise<EvmReceipts> {
  const contract = await deployContract(chain);
  const anchor = await testApp(
    {
      ...evmEnv(chain.url, contract),
      ETH_CONFIRMATIONS: String(confirmations),
      BATCH_INTERVAL_MS: '0',
    },
    store,
  );
  for (const bundleHash of bundleHashes) {
    const posted = await postAnchor(anchor, bundleHash, 'ethereum');
    if (posted.statusCode !== 202) throw new Error(`POST /anchor: ${posted.statusCode} ${posted.body}`);
  }
  await anchor.anchorWorker.run('ethereum', true);
  await chain.mine(confirmations);
  await anchor.anchorWorker.run('ethereum', true);
  const receipts: Record<string, unknown>[] = [];
  for (const bundleHash of bundleHashes) {
    const res = await anchor.inject({ method: 'GET', url: `/anchor/${bundleHash}?chain=ethereum` });
    if (res.statusCode !== 200) throw new Error(`GET /anchor: ${res.statusCode} ${res.body}`);
    receipts.push((res.json() as { anchor_receipt: Record<string, unknown> }).anchor_receipt);
  }
  return { anchor, receipts };
}

/** `confirmedEvmReceipts` for one bundle hash. */
export async function confirmedEvmReceipt(
  chain: LocalChain,
  store: Store,
  bundleHash: string,
  confirmations = 1,
): Promise<{ readonly anchor: FastifyInstance; readonly receipt: Record<string, unknown> }> {
  const { anchor, receipts } = await confirmedEvmReceipts(chain, store, [bundleHash], confirmations);
  return { anchor, receipt: receipts[0]! };
}
