// Test support: the anchor service in-process on a fresh SQLite store, anchoring on a fresh local EVM chain with the
// contract deployed: the set-up the EVM reorganisation and watch tests shared (D19, P392, P500, P63), in one place.
import { createStoreTarget } from '@proto/store/testing';
import type { FastifyInstance } from 'fastify';
import { testApp } from './app.ts';
import { deployContract, evmEnv } from './evm-chain.ts';
import { type LocalChain, startLocalChain } from './ganache.ts';

export interface EvmAnchorService {
  readonly chain: LocalChain;
  /** The anchor service (not listening: `listen` it where a test needs a URL). */
  readonly app: FastifyInstance;
  /** Closes the service, removes its store and stops the chain. */
  close(): Promise<void>;
}

/**
 * Starts it on a store named `label`, with ETH_CONFIRMATIONS 3 and no batching delay; `extra` adds to or overrides
 * the variables (e.g. ANCHOR_REORG_WATCH_DEPTH).
 */
export async function startEvmAnchorService(
  label: string,
  extra: Record<string, string> = {},
): Promise<EvmAnchorService> {
  const chain = await startLocalChain();
  const target = await createStoreTarget('sqlite', label).catch(async (error: unknown) => {
    await chain.close();
    throw error;
  });
  const close = async (app?: FastifyInstance) => {
    await app?.close();
    await target.cleanup();
    await chain.close();
  };
  try {
    const contract = await deployContract(chain);
    const app = await testApp(
      { ...evmEnv(chain.url, contract), ETH_CONFIRMATIONS: '3', BATCH_INTERVAL_MS: '0', ...extra },
      await target.open(),
    );
    return { chain, app, close: () => close(app) };
  } catch (error) {
    await close();
    throw error;
  }
}
