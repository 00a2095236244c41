// `proto receipt verify`: checks an anchor receipt for a bundle hash: the Merkle path to the batch root, then the chain
// (EVM JSON-RPC, Esplora) or the log. SPEC.md "Anchor receipt" and the anchor verification flow; DECISIONS D19.
import type { Command, ParsedCommandLine } from '../command.ts';
import { CONFIRMATIONS, integerOption } from '../integer-option.ts';
import {
  CliError,
  type CliIo,
  EXIT_NOT_VERIFIED,
  EXIT_OK,
  inputName,
  isPlainObject,
  printJson,
  readJsonInput,
} from '../io.ts';
import { stringOption } from '../option-values.ts';
import { progress } from '../progress.ts';
import { timeoutOption } from '../timeout-option.ts';
import { validateWitnessFlags, WITNESS_OPTIONS, witnessFlags } from '../witness-options.ts';

function url(values: ParsedCommandLine['values'], name: string): string | undefined {
  const value = stringOption(values, name);
  if (value !== undefined && !/^https?:\/\//.test(value))
    throw new CliError(`--${name} must be an http(s) URL`);
  return value;
}

async function verify(source: string, values: ParsedCommandLine['values'], io: CliIo): Promise<number> {
  // Numbers first, before the receipt is read or any source asked (P178).
  const minConfirmations = integerOption(values['min-confirmations'], 'min-confirmations', CONFIRMATIONS);
  const timeoutMs = timeoutOption(values['timeout']);
  const bundleHash = stringOption(values, 'bundle-hash');
  if (bundleHash === undefined || !/^sha256:[0-9a-f]{64}$/.test(bundleHash)) {
    throw new CliError('--bundle-hash sha256:<64 lowercase hex> is required', { showUsage: true });
  }
  const secondaryHash = stringOption(values, 'secondary-hash');
  if (secondaryHash !== undefined && !/^sha3-256:[0-9a-f]{64}$/.test(secondaryHash)) {
    throw new CliError('--secondary-hash must be sha3-256:<64 lowercase hex>', { showUsage: true });
  }
  const input = await readJsonInput(source, io);
  if (isPlainObject(input) && isPlainObject(input['error']) && !('anchor_receipt' in input)) {
    throw new CliError(`${inputName(source)}: holds an error response, not a receipt`);
  }
  const receipt =
    isPlainObject(input) && isPlainObject(input['anchor_receipt']) ? input['anchor_receipt'] : input;
  if (!isPlainObject(receipt)) throw new CliError(`${inputName(source)}: expected an anchor receipt object`);

  const rpc = url(values, 'rpc');
  const esplora = url(values, 'esplora');
  const log = url(values, 'log');
  const rawKeys = values['log-key'] as unknown;
  const keys = (Array.isArray(rawKeys) ? rawKeys : rawKeys === undefined ? [] : [rawKeys]).filter(
    (k): k is string => typeof k === 'string',
  );
  const receiptLog = typeof receipt['log_url'] === 'string' ? receipt['log_url'] : undefined;
  const logUrl = log ?? receiptLog;
  const witnesses = witnessFlags(values);
  await validateWitnessFlags(witnesses);

  // The receipt verifier is a framework-free client (@proto/clients), loaded only when this command runs.
  const { verifyAnchorReceipt } = await import('@proto/clients');
  const { errorCode, DEFAULT_PROFILE } = await import('@proto/core');
  progress(io, `checking the receipt of ${bundleHash}`);
  const check = await verifyAnchorReceipt(receipt, bundleHash, {
    ...(secondaryHash === undefined ? {} : { secondaryHash }),
    ...(rpc === undefined ? {} : { evmRpc: rpc }),
    ...(esplora === undefined ? {} : { esplora }),
    ...(logUrl === undefined
      ? {}
      : {
          logs: [
            {
              url: logUrl,
              ...(keys.length > 0 ? { keys } : {}),
              ...(witnesses.witnessKeys.length > 0 ? { witnesses: witnesses.witnessKeys } : {}),
              ...(witnesses.witnessQuorum === undefined ? {} : { quorum: witnesses.witnessQuorum }),
            },
          ],
        }),
    ...(minConfirmations === undefined ? {} : { minConfirmations }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
  const warnings = [...check.warnings];
  if (log === undefined && receiptLog !== undefined && keys.length === 0) {
    warnings.push(
      'asked the log named by the receipt itself (give --log and --log-key to choose whom to trust)',
    );
  }
  printJson(io, {
    verified: check.status === 'pass',
    status: check.status,
    ...(check.kind === undefined ? {} : { kind: check.kind }),
    message: check.message,
    ...(check.code === undefined ? {} : { code: errorCode(check.code, DEFAULT_PROFILE) }),
    retryable: check.retryable,
    ...(check.confirmations === undefined ? {} : { confirmations: check.confirmations }),
    ...(check.witnesses === undefined ? {} : { witnesses: check.witnesses }),
    warnings,
  });
  return check.status === 'pass' ? EXIT_OK : EXIT_NOT_VERIFIED;
}

const receiptVerifyCommand: Command = {
  name: 'verify',
  summary: 'verify an anchor receipt for a bundle hash against its chain or log',
  usage: ['FILE|- --bundle-hash H [options]'],
  description: `Verifies an anchor receipt (the receipt, or an {anchor_receipt} response) for a bundle hash:
  1. the receipt's bundle_hash (if any) is H, and its merkle_path leads from H to batch_root; a
     receipt anchoring a SHA3-256 hash too: bundle_hash_secondary is S (when given) and its
     merkle_path_secondary leads to the same batch_root;
  2. contract chain: the transaction's receipt from --rpc has the Anchored event at event_index,
     emitted by the contract, with topic1 = batch_root, in block block_number;
     Bitcoin: the raw transaction from --esplora hashes to tx_id and has an OP_RETURN with
     proto:v2:<batch_root>, in block block_height;
     log: with --log-key, the log's signed checkpoint holds the receipt's root (or a consistent one);
     without, the log's proof endpoint must reproduce the receipt's root.`,
  options: [
    {
      flags: '--bundle-hash <H>',
      description: 'sha256:<64 lowercase hex> (compute it with `proto hash BUNDLE`)',
    },
    {
      flags: '--secondary-hash <S>',
      description: "sha3-256:<64 lowercase hex>, the bundle's SHA3-256 hash (V2)",
    },
    { flags: '--rpc <URL>', description: 'EVM JSON-RPC endpoint for contract-chain receipts' },
    { flags: '--esplora <URL>', description: 'Esplora API base URL for Bitcoin receipts' },
    {
      flags: '--log <URL>',
      description: "the transparency log to ask (default: the receipt's log_url, with a warning)",
    },
    {
      flags: '--log-key <VKEY>',
      description: "the log's verifier key (repeat for both keys); take it from a channel you trust",
      repeatable: true,
    },
    ...WITNESS_OPTIONS,
    {
      flags: '--min-confirmations <N>',
      description: 'confirmations required to pass, 1 to 10000 (default 1)',
    },
    { flags: '--timeout <MS>', description: 'per request, 1 to 600000 (default 10000)' },
  ],
  epilog: `Prints {verified, status, kind, message, code?, retryable, confirmations?, witnesses?, warnings}.
Exit codes: 0 verified, 1 not verified (failed, or skipped: see status and retryable), 2 bad usage.
`,
  positionals: { min: 1, max: 1 },
  run: ({ values, positionals }, io) => verify(positionals[0] as string, values, io),
};

export const receiptCommand: Command = {
  name: 'receipt',
  summary: 'verify an anchor receipt against its chain or log (receipt verify)',
  description: 'Checks anchor receipts (POST /anchor, GET /receipt) against the chain or the log they name.',
  subcommands: [receiptVerifyCommand],
};
