// Compiles contracts/ProtoAnchor.sol in-process with solc-js (pinned 0.8.30, no download) into the artifact we commit.
// SPEC.md "Anchoring formats" (contract chain) and DECISIONS D19: the contract, its ABI and bytecode live in the repo.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** The repository's contracts folder (services/anchor/src/contract → ../../../../contracts). */
export const CONTRACTS_DIR = fileURLToPath(new URL('../../../../contracts/', import.meta.url));
export const CONTRACT_SOURCE_FILE = 'ProtoAnchor.sol';
export const CONTRACT_NAME = 'ProtoAnchor';
export const CONTRACT_ARTIFACT_FILE = 'ProtoAnchor.generated.json';

/**
 * Compiler settings. `paris` keeps PUSH0 and later opcodes out of the bytecode so the contract deploys
 * on every EVM chain and local node, including ones that lag behind mainnet's hard forks.
 */
export const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'paris',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
} as const;

export interface ContractArtifact {
  readonly contractName: string;
  readonly sourceFile: string;
  readonly compiler: string;
  readonly settings: typeof SOLC_SETTINGS;
  readonly abi: readonly unknown[];
  /** Creation bytecode, 0x-prefixed hex. */
  readonly bytecode: `0x${string}`;
  /** Runtime bytecode, 0x-prefixed hex (what `eth_getCode` returns after deployment). */
  readonly deployedBytecode: `0x${string}`;
}

interface SolcOutput {
  readonly errors?: readonly { readonly severity: string; readonly formattedMessage: string }[];
  readonly contracts?: Record<
    string,
    Record<
      string,
      {
        readonly abi: unknown[];
        readonly evm: {
          readonly bytecode: { object: string };
          readonly deployedBytecode: { object: string };
        };
      }
    >
  >;
}

interface Solc {
  version(): string;
  compile(input: string): string;
}

/** Compiles the contract source (default: the committed .sol file) and returns the artifact. */
export function compileAnchorContract(
  source: string = readFileSync(`${CONTRACTS_DIR}${CONTRACT_SOURCE_FILE}`, 'utf8'),
): ContractArtifact {
  // solc-js is CommonJS and loads its ~9 MB compiler lazily: only the build script and tests pay for it.
  const solc = createRequire(import.meta.url)('solc') as Solc;
  const input = {
    language: 'Solidity',
    sources: { [CONTRACT_SOURCE_FILE]: { content: source } },
    settings: SOLC_SETTINGS,
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  }
  const contract = output.contracts?.[CONTRACT_SOURCE_FILE]?.[CONTRACT_NAME];
  if (!contract) throw new Error(`solc produced no ${CONTRACT_NAME} contract`);
  return {
    contractName: CONTRACT_NAME,
    sourceFile: `contracts/${CONTRACT_SOURCE_FILE}`,
    compiler: `solc-js ${solc.version()}`,
    settings: SOLC_SETTINGS,
    abi: contract.abi,
    bytecode: `0x${contract.evm.bytecode.object}`,
    deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
  };
}

/** The artifact file's exact text: two-space JSON and a final newline. */
export function artifactText(artifact: ContractArtifact): string {
  return `${JSON.stringify(artifact, null, 2)}\n`;
}
