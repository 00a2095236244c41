// Test support: a local EVM chain with the anchor contract deployed, and the variables that point the anchor service
// at it. The one set-up of the EVM tests (SPEC.md "Anchoring formats", contract chain; D19), folded from each file.
import { deployAnchorContract } from '@proto/clients/contract';
import { ANCHOR_KEY, DEPLOYER_KEY, type LocalChain, startLocalChain, TEST_CHAIN_ID } from './ganache.ts';

export interface ChainWithContract {
  readonly chain: LocalChain;
  /** The `ProtoAnchor` contract's address. */
  readonly contract: string;
}

/** Deploys the anchor contract on `chain` from the deployer account, which is not the one that anchors. */
export async function deployContract(chain: LocalChain): Promise<string> {
  return (await deployAnchorContract({ rpcUrl: chain.url, privateKey: DEPLOYER_KEY })).contract;
}

/** A fresh local chain (`hardfork` as startLocalChain takes it) with the anchor contract deployed. */
export async function startChainWithContract(
  options: { readonly hardfork?: string } = {},
): Promise<ChainWithContract> {
  const chain = await startLocalChain(options);
  return { chain, contract: await deployContract(chain) };
}

/**
 * The variables that configure the EVM chain: the RPC at `rpcUrl` (the chain's own, or a front before it), the test
 * chain's id, `contract`, and the anchoring account paying; `extra` adds settings or overrides these.
 */
export function evmEnv(
  rpcUrl: string,
  contract: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    ETH_RPC_URL: rpcUrl,
    ETH_CHAIN_ID: String(TEST_CHAIN_ID),
    ETH_CONTRACT: contract,
    ETH_PRIVATE_KEY: ANCHOR_KEY,
    ...extra,
  };
}
