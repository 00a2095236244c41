// Deploys the committed ProtoAnchor artifact with viem and checks the code the chain stores; used by
// `proto anchor deploy-contract` and the tests. SPEC.md "Anchoring formats" (contract chain), DECISIONS D19.
import { createPublicClient, createWalletClient, defineChain, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
// The committed artifact that services/anchor/src/contract/build-contract.ts writes, imported rather than read
// from disk so that a bundled CLI (the single-file executable) carries it.
import ARTIFACT from '../../../../contracts/ProtoAnchor.generated.json' with { type: 'json' };
import { boundedHttpTransport } from '../json-rpc-transport.ts';

/** What deployment needs of the artifact; the anchor service's compile.ts owns the full shape. */
export interface DeployableArtifact {
  readonly abi: readonly unknown[];
  /** Creation bytecode, 0x-prefixed hex. */
  readonly bytecode: `0x${string}`;
  /** Runtime bytecode, 0x-prefixed hex (what `eth_getCode` returns after deployment). */
  readonly deployedBytecode: `0x${string}`;
}

/** The committed artifact (contracts/ProtoAnchor.generated.json). */
export function loadAnchorArtifact(): DeployableArtifact {
  return structuredClone(ARTIFACT) as DeployableArtifact;
}

export interface DeployOptions {
  readonly rpcUrl: string;
  /** Hex secp256k1 key of the deploying (paying) account, with or without 0x. */
  readonly privateKey: string;
  /** Expected chain id; default: whatever the RPC serves. */
  readonly chainId?: number;
  /** Blocks to wait for (default 1). */
  readonly confirmations?: number;
  readonly timeoutMs?: number;
  /** Each JSON-RPC request, body included (default 30 s); `timeoutMs` still bounds the wait for the receipt. */
  readonly requestTimeoutMs?: number;
}

export interface DeployResult {
  readonly contract: string;
  readonly tx_id: string;
  readonly block_number: number;
  readonly chain_id: number;
  readonly deployer: string;
}

export async function deployAnchorContract(options: DeployOptions): Promise<DeployResult> {
  const artifact = loadAnchorArtifact();
  const key = (options.privateKey.startsWith('0x') ? options.privateKey : `0x${options.privateKey}`) as Hex;
  const account = privateKeyToAccount(key);
  // Redirects viem would follow, to a host the user never named (which then answers for the chain): each request
  // is one fetchBounded exchange instead, timed body included and read up to 16 MiB (P155, P162, P167).
  const requestTimeoutMs = options.requestTimeoutMs ?? options.timeoutMs ?? 30_000;
  const transport = boundedHttpTransport(options.rpcUrl, { timeoutMs: requestTimeoutMs });
  const served = await createPublicClient({ transport }).getChainId();
  if (options.chainId !== undefined && options.chainId !== served) {
    throw new Error(`the RPC serves chain id ${served}, not ${options.chainId}`);
  }
  const chain = defineChain({
    id: served,
    name: `chain-${served}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [options.rpcUrl] } },
  });
  const client = createPublicClient({ chain, transport });
  const wallet = createWalletClient({ account, chain, transport });
  const hash = await wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode });
  const receipt = await client.waitForTransactionReceipt({
    hash,
    confirmations: options.confirmations ?? 1,
    pollingInterval: 500,
    timeout: options.timeoutMs ?? 120_000,
  });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`deployment ${hash} failed`);
  const code = await client.getCode({ address: receipt.contractAddress });
  if (code?.toLowerCase() !== artifact.deployedBytecode.toLowerCase()) {
    throw new Error(`the code at ${receipt.contractAddress} is not the ProtoAnchor runtime bytecode`);
  }
  return {
    contract: receipt.contractAddress,
    tx_id: hash,
    block_number: Number(receipt.blockNumber),
    chain_id: served,
    deployer: account.address,
  };
}
