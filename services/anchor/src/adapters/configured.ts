// Builds the configured chain adapters from the environment: EVM, Bitcoin, transparency log.
// SPEC.md "POST /anchor" (the chains offered depend on the operator), DECISIONS D19.
// The EVM and Bitcoin adapters are imported only when configured (P80, P135): viem and @scure/btc-signer
// cost the idle service tens of MB and half a second of start-up it does not use on the embedded defaults.
import type { ProtocolProfile } from '@proto/core';
import type { AnchorConfig } from '../config.ts';
import { TransparencyLogAdapter } from './transparency-log.ts';
import type { ChainAdapter } from './types.ts';

/** One adapter per configured chain, keyed by the name clients send as `chain`. */
export async function createAdapters(
  config: AnchorConfig,
  profile: ProtocolProfile,
): Promise<Map<string, ChainAdapter>> {
  const adapters: ChainAdapter[] = [];
  if (config.ETH_RPC_URL && config.ETH_CHAIN_ID && config.ETH_CONTRACT && config.ETH_PRIVATE_KEY) {
    const { EthereumAdapter } = await import('./ethereum.ts');
    adapters.push(
      new EthereumAdapter({
        name: config.ETH_CHAIN_NAME,
        rpcUrl: config.ETH_RPC_URL,
        chainId: config.ETH_CHAIN_ID,
        contract: config.ETH_CONTRACT,
        privateKey: config.ETH_PRIVATE_KEY,
        confirmations: config.ETH_CONFIRMATIONS,
        gasLimit: config.ETH_GAS_LIMIT,
        maxCallGas: config.ETH_MAX_CALL_GAS,
        bumpAfterMs: config.ETH_BUMP_AFTER_MS,
        maxFeeGwei: config.ETH_MAX_FEE_GWEI,
        timeoutMs: config.ANCHOR_UPSTREAM_TIMEOUT_MS,
      }),
    );
  }
  if (config.BTC_ESPLORA_URL && config.BTC_PRIVATE_KEY) {
    const { BitcoinAdapter } = await import('./bitcoin.ts');
    adapters.push(
      new BitcoinAdapter({
        esploraUrl: config.BTC_ESPLORA_URL,
        privateKey: config.BTC_PRIVATE_KEY,
        network: config.BTC_NETWORK,
        confirmations: config.BTC_CONFIRMATIONS,
        feeRate: config.BTC_FEE_RATE,
        rbfAfterMs: config.BTC_RBF_AFTER_MS,
        maxFeeRate: config.BTC_MAX_FEE_RATE,
        profile,
        timeoutMs: config.ANCHOR_UPSTREAM_TIMEOUT_MS,
      }),
    );
  }
  if (config.TL_URL)
    adapters.push(
      new TransparencyLogAdapter({
        url: config.TL_URL,
        token: config.TL_TOKEN,
        tokenFile: config.TL_TOKEN_FILE,
        concurrency: config.TL_CONCURRENCY,
        timeoutMs: config.ANCHOR_UPSTREAM_TIMEOUT_MS,
      }),
    );
  const byName = new Map<string, ChainAdapter>();
  for (const adapter of adapters) {
    if (byName.has(adapter.name)) throw new Error(`two chains are named ${adapter.name}`);
    byName.set(adapter.name, adapter);
  }
  return byName;
}
