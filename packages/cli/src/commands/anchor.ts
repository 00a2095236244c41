// `proto anchor deploy-contract`: deploys the repository's ProtoAnchor contract (contracts/) to an EVM chain.
// SPEC.md "Anchoring formats" (contract chain), DECISIONS D19; the anchor service then takes ETH_CONTRACT from its output.
import { redactUrl } from '@proto/clients/redact-url';
import type { Command, ParsedCommandLine } from '../command.ts';
import { CHAIN_ID, CONFIRMATIONS, integerOption } from '../integer-option.ts';
import { CliError, type CliIo, EXIT_INTERNAL, EXIT_OK, printJson } from '../io.ts';
import { progress } from '../progress.ts';
import { terminalText } from '../render-verdict.ts';
import { timeoutOption } from '../timeout-option.ts';

async function deploy(values: ParsedCommandLine['values'], io: CliIo): Promise<number> {
  // Numbers first: a bad one is bad usage whatever else is wrong (P178).
  const chainId = integerOption(values['chain-id'], 'chain-id', CHAIN_ID);
  const confirmations = integerOption(values['confirmations'], 'confirmations', CONFIRMATIONS);
  const requestTimeoutMs = timeoutOption(values['timeout']);
  const rpc = values['rpc'];
  if (typeof rpc !== 'string' || !/^https?:\/\//.test(rpc)) {
    throw new CliError('--rpc URL (http or https) is required', { showUsage: true });
  }
  const key = typeof values['key'] === 'string' ? values['key'] : process.env['ETH_PRIVATE_KEY'];
  if (key === undefined || !/^(0x)?[0-9a-fA-F]{64}$/.test(key)) {
    throw new CliError('--key HEX (or ETH_PRIVATE_KEY) must be a 64-hex private key', { showUsage: true });
  }
  // viem loads only for this command; the deployment code is a framework-free client the anchor tests share.
  const { deployAnchorContract } = await import('@proto/clients/contract');
  // P580: the node as redactUrl shows it; its userinfo is the user's key, sent as Basic, never printed.
  progress(io, `deploying to ${redactUrl(rpc)} and waiting for ${confirmations ?? 1} confirmation(s)`);
  let result: Awaited<ReturnType<typeof deployAnchorContract>>;
  try {
    result = await deployAnchorContract({
      rpcUrl: rpc,
      privateKey: key,
      ...(chainId === undefined ? {} : { chainId }),
      ...(confirmations === undefined ? {} : { confirmations }),
      ...(requestTimeoutMs === undefined ? {} : { requestTimeoutMs }),
    });
  } catch (cause) {
    io.stderr(`proto anchor: the deployment failed: ${oneLine(cause)}\n`);
    return EXIT_INTERNAL;
  }
  printJson(io, result);
  return EXIT_OK;
}

/**
 * viem's errors run to many lines (URL, request body, version): the request body of eth_sendRawTransaction is the
 * signed transaction, noise on a terminal. Its short message and details say what failed (P162).
 */
function oneLine(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const { shortMessage, details } = cause as Error & { shortMessage?: unknown; details?: unknown };
  const head = typeof shortMessage === 'string' ? shortMessage : (cause.message.split('\n')[0] ?? '');
  const text = typeof details === 'string' && details !== '' ? `${head} ${details}` : head;
  // P321: the node's own error text, so its escape sequences are written out, not run by the terminal.
  return terminalText(text.replace(/\s+/g, ' ').trim().slice(0, 500));
}

const deployContractCommand: Command = {
  name: 'deploy-contract',
  summary: 'deploy contracts/ProtoAnchor.sol and print its address',
  usage: ['--rpc URL [--key HEX] [--chain-id N] [--confirmations N] [--timeout MS]'],
  description: `Deploys contracts/ProtoAnchor.sol (the committed solc 0.8.30 artifact, contracts/ProtoAnchor.generated.json)
from the account of --key, waits for it, checks the code the chain stores, and prints
{contract, tx_id, block_number, chain_id, deployer}. Set ETH_CONTRACT of the anchor service to "contract".`,
  options: [
    { flags: '--rpc <URL>', description: 'EVM JSON-RPC endpoint' },
    {
      flags: '--key <HEX>',
      description:
        'secp256k1 private key of the paying account (64 hex, 0x optional); default: the ETH_PRIVATE_KEY environment variable (keeps it out of shell history)',
    },
    {
      flags: '--chain-id <N>',
      description: 'refuse to deploy unless the RPC serves this chain id (1 to 9007199254740991)',
    },
    { flags: '--confirmations <N>', description: 'blocks to wait for, 1 to 10000 (default 1)' },
    {
      flags: '--timeout <MS>',
      description: 'each JSON-RPC request, the whole answer included, 1 to 600000 (default 30000)',
    },
  ],
  epilog: `Exit codes: 0 deployed, 2 bad usage, 3 the deployment failed.
`,
  positionals: { min: 0, max: 0 },
  run: ({ values }, io) => deploy(values, io),
};

export const anchorCommand: Command = {
  name: 'anchor',
  summary: 'deploy the anchoring contract to an EVM chain (anchor deploy-contract)',
  description: 'Sets up on-chain anchoring for the anchor service.',
  subcommands: [deployContractCommand],
};
