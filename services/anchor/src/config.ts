// The anchor service's environment: mode, batching, the three chain adapters and their keys, validated at boot.
// SPEC.md "POST /anchor" (operator-configured chains), PROTOCOL §9.3 (PORT 3001, ANCHOR_MODE, BATCH_INTERVAL_MS), D19, D22.
import {
  ConfigError,
  defineEnv,
  loadConfig,
  OPERATOR_TOKEN_ENV,
  type SharedConfig,
} from '@proto/service-kit';

/**
 * The gas bounds of the EVM adapter (P196, P215). `anchor(bytes32)` stores nothing and emits one event: a few tens of
 * thousands of gas; on Arbitrum the estimate also carries the L1 data cost in L2 gas, which grows with L1 fees, hence
 * the default's wide margin. ETH_MAX_CALL_GAS is the most an estimate may name (the estimate is then raised by 25 %);
 * ETH_GAS_LIMIT, a fixed limit signed as given, may not exceed it. Neither may pass ETH_GAS_CEILING: 30,000,000 is
 * Ethereum's block gas limit of 2021–2025 and below Arbitrum's 32,000,000 per transaction; a write signed with more
 * is refused by the node (above its block gas limit) or reserves gas × fee the call never uses, per write.
 */
export const DEFAULT_ETH_MAX_CALL_GAS = 5_000_000;
export const ETH_MAX_CALL_GAS_FLOOR = 100_000;
/**
 * The least ETH_GAS_LIMIT the boot takes (P250). 21,000 is a plain transfer's cost; `anchor(bytes32)` costs that plus
 * its 36 bytes of call data (16 gas a non-zero byte) plus the event: 23,226 gas on the tests' local chain for a root of
 * non-zero bytes (22,842 for zeros), measured by test/gas-settings.test.ts. Below 24,000 every write fails at the chain.
 */
export const ETH_GAS_LIMIT_FLOOR = 24_000;
export const ETH_GAS_CEILING = 30_000_000;

/**
 * P521: upper bounds of the timing variables. The intervals Node hands to a timer (the worker's poll, the lease
 * renewal it derives) must stay under its timer range, 2^31 - 1 ms, past which a timer fires after 1 ms; the others
 * are compared with clock times, where 2^53 ms is no date at all. Each bound is far past any setting that anchors:
 * an hour between polls, a day for a batch to fill, a week before an EVM fee bump, thirty days before a Bitcoin
 * replacement, 1 000 confirmations and a watch of 10 000 blocks (Bitcoin's final depth is 6, Ethereum's 64).
 */
const MAX_BATCH_INTERVAL_MS = 86_400_000;
const MAX_CONFIRMATIONS = 1_000;
const MAX_WATCH_DEPTH = 10_000;

/** A chain's name in requests and receipts: ETH_CHAIN_NAME's form, which `bitcoin` and `transparency-log` have too. */
export const CHAIN_NAME_PATTERN = '^[a-z0-9][a-z0-9_.-]{0,63}$';

export const ANCHOR_ENV = defineEnv({
  PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 3001, description: 'HTTP port' },
  ...OPERATOR_TOKEN_ENV,
  ANCHOR_MODE: {
    type: 'string',
    enum: ['batch', 'individual'],
    default: 'batch',
    description: 'batch: 202 at once, written with its batch; individual: 200 once the write is sent',
  },
  ANCHOR_DEFAULT_CHAIN: {
    type: 'string',
    minLength: 1,
    description: 'Chain used when a request names none (default: the only configured chain, if just one)',
  },
  BATCH_MAX: {
    type: 'integer',
    minimum: 1,
    maximum: 65536,
    default: 1024,
    description: 'Most hashes in one batch (one root per chain write)',
  },
  BATCH_INTERVAL_MS: {
    type: 'integer',
    minimum: 0,
    maximum: MAX_BATCH_INTERVAL_MS,
    default: 60000,
    description: 'A batch closes when its oldest hash has waited this long (or at BATCH_MAX)',
  },
  ANCHOR_POLL_INTERVAL_MS: {
    type: 'integer',
    minimum: 10,
    maximum: 3_600_000,
    default: 5000,
    description: 'How often the worker closes due batches, sends and tracks confirmations',
  },
  ANCHOR_MAX_BACKLOG: {
    type: 'integer',
    minimum: 0,
    default: 100000,
    description:
      'Requests per chain queued or in an unsent batch before POST /anchor answers 503 + Retry-After (E702); 0: no bound',
  },
  ANCHOR_WAIT_MS: {
    type: 'integer',
    minimum: 0,
    maximum: 600_000,
    default: 60000,
    description: 'individual mode: longest wait for the write before answering 202 pending',
  },
  ANCHOR_MAX_ATTEMPTS: {
    type: 'integer',
    minimum: 1,
    default: 3,
    description: 'Writes tried per hash when a chain refuses or reverts one',
  },
  ANCHOR_REPLICA_ID: {
    type: 'string',
    pattern: '^[A-Za-z0-9_.:-]{1,128}$',
    description:
      'This replica in the per-chain send lease (default: the host name); a restarted replica takes its lease back at once',
  },
  ANCHOR_LEASE_MS: {
    type: 'integer',
    minimum: 1000,
    maximum: 3_600_000,
    default: 30000,
    description: 'Per-chain send lease: one replica signs and broadcasts at a time',
  },
  ANCHOR_REORG_WATCH_DEPTH: {
    type: 'integer',
    minimum: 0,
    maximum: MAX_WATCH_DEPTH,
    default: 0,
    description:
      "A confirmed write is re-checked until it has this many confirmations; if its block left the best chain it goes back to pending and is re-sent (0: twice the chain's confirmations, and at least its final depth: evm 64, bitcoin 6)",
  },
  ETH_CHAIN_NAME: {
    type: 'string',
    pattern: CHAIN_NAME_PATTERN,
    default: 'ethereum',
    description: 'Name of the EVM chain in requests and receipts (e.g. base, sepolia)',
  },
  ETH_RPC_URL: { type: 'string', pattern: '^https?://', description: 'EVM JSON-RPC endpoint' },
  ETH_CHAIN_ID: { type: 'integer', minimum: 1, description: 'EVM chain id (signed into every transaction)' },
  ETH_CONTRACT: {
    type: 'string',
    pattern: '^0x[0-9a-fA-F]{40}$',
    description: 'Address of the deployed ProtoAnchor contract',
  },
  ETH_PRIVATE_KEY: {
    type: 'string',
    pattern: '^(0x)?[0-9a-fA-F]{64}$',
    description: 'Hex secp256k1 key of the paying account (secret)',
  },
  ETH_CONFIRMATIONS: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_CONFIRMATIONS,
    default: 12,
    description: 'Blocks before a receipt is confirmed',
  },
  ETH_GAS_LIMIT: {
    type: 'integer',
    // The floor is checked in loadAnchorConfig, with a message that says why (P250).
    minimum: 0,
    maximum: ETH_GAS_CEILING,
    description: `Fixed gas limit per anchor transaction, ${ETH_GAS_LIMIT_FLOOR}–${ETH_GAS_CEILING} and at most ETH_MAX_CALL_GAS (default: estimated + 25%)`,
  },
  ETH_MAX_CALL_GAS: {
    type: 'integer',
    minimum: ETH_MAX_CALL_GAS_FLOOR,
    maximum: ETH_GAS_CEILING,
    default: DEFAULT_ETH_MAX_CALL_GAS,
    description: `Most gas a node's estimate of the anchor call may name, ${ETH_MAX_CALL_GAS_FLOOR}–${ETH_GAS_CEILING}; a higher estimate is the node unreliable, nothing is signed with it (P196, P215)`,
  },
  ETH_BUMP_AFTER_MS: {
    type: 'integer',
    minimum: 0,
    maximum: 604_800_000,
    default: 600000,
    description:
      'A write still unmined this long after it was sent is replaced at the same nonce with fees raised by at least 12.5 % (P64); 0: never',
  },
  ETH_MAX_FEE_GWEI: {
    type: 'integer',
    minimum: 1,
    default: 500,
    description: 'Highest gas price / max fee per gas in gwei a fee bump may offer',
  },
  BTC_ESPLORA_URL: { type: 'string', pattern: '^https?://', description: 'Esplora-compatible HTTP API' },
  BTC_PRIVATE_KEY: {
    type: 'string',
    pattern: '^([0-9a-fA-F]{64}|[1-9A-HJ-NP-Za-km-z]{51,52})$',
    description: 'WIF or hex key of the P2WPKH wallet paying the fees (secret)',
  },
  BTC_NETWORK: {
    type: 'string',
    enum: ['mainnet', 'testnet', 'regtest'],
    default: 'mainnet',
    description: 'Bitcoin network (addresses, WIF, receipts)',
  },
  BTC_CONFIRMATIONS: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_CONFIRMATIONS,
    default: 6,
    description: 'Blocks before a receipt is confirmed',
  },
  BTC_FEE_RATE: {
    type: 'integer',
    minimum: 1,
    default: 2,
    description: 'Fee rate in sat/vB for anchor transactions',
  },
  BTC_RBF_AFTER_MS: {
    type: 'integer',
    minimum: 0,
    maximum: 2_592_000_000,
    default: 3600000,
    description:
      'A write still unconfirmed this long after it was sent is replaced with twice the fee rate (BIP 125); 0: never',
  },
  BTC_MAX_FEE_RATE: {
    type: 'integer',
    minimum: 1,
    default: 100,
    description: 'Highest fee rate in sat/vB a fee bump may pay',
  },
  TL_URL: { type: 'string', pattern: '^https?://', description: 'Transparency-log service base URL' },
  TL_TOKEN: { type: 'string', description: "Bearer token for the log's POST /add (its OPERATOR_TOKEN)" },
  TL_TOKEN_FILE: {
    type: 'string',
    minLength: 1,
    description: "File holding the log's token (its generated operator-token), read when TL_TOKEN is unset",
  },
  ANCHOR_UPSTREAM_TIMEOUT_MS: {
    type: 'integer',
    minimum: 1000,
    maximum: 300_000,
    default: 10_000,
    description:
      "Longest wait for one whole answer of a chain's API (EVM JSON-RPC, Esplora, the transparency log); slower is retried (P168)",
  },
  TL_CONCURRENCY: {
    type: 'integer',
    minimum: 1,
    maximum: 1024,
    default: 64,
    description: 'Appends to the transparency log in flight at once while a batch is sent',
  },
  DATABASE_SCHEMA: {
    type: 'string',
    pattern: '^[a-z_][a-z0-9_]{0,62}$',
    description: 'PostgreSQL schema of the anchor tables (default: the server search_path)',
  },
  ANCHOR_TEST_CRASH_AFTER_SEND: {
    type: 'boolean',
    default: false,
    description: 'Tests only: SIGKILL the process right after a broadcast, before it is recorded',
  },
});

export interface AnchorConfig extends SharedConfig {
  readonly OPERATOR_TOKEN?: string;
  readonly ANCHOR_MODE: 'batch' | 'individual';
  readonly ANCHOR_DEFAULT_CHAIN?: string;
  readonly BATCH_MAX: number;
  readonly BATCH_INTERVAL_MS: number;
  readonly ANCHOR_POLL_INTERVAL_MS: number;
  readonly ANCHOR_WAIT_MS: number;
  readonly ANCHOR_MAX_BACKLOG: number;
  readonly ANCHOR_MAX_ATTEMPTS: number;
  readonly ANCHOR_LEASE_MS: number;
  readonly ANCHOR_REPLICA_ID?: string;
  readonly ANCHOR_REORG_WATCH_DEPTH: number;
  readonly ETH_CHAIN_NAME: string;
  readonly ETH_RPC_URL?: string;
  readonly ETH_CHAIN_ID?: number;
  readonly ETH_CONTRACT?: string;
  readonly ETH_PRIVATE_KEY?: string;
  readonly ETH_CONFIRMATIONS: number;
  readonly ETH_GAS_LIMIT?: number;
  readonly ETH_MAX_CALL_GAS: number;
  readonly ETH_BUMP_AFTER_MS: number;
  readonly ETH_MAX_FEE_GWEI: number;
  readonly BTC_ESPLORA_URL?: string;
  readonly BTC_PRIVATE_KEY?: string;
  readonly BTC_NETWORK: 'mainnet' | 'testnet' | 'regtest';
  readonly BTC_CONFIRMATIONS: number;
  readonly BTC_FEE_RATE: number;
  readonly BTC_RBF_AFTER_MS: number;
  readonly BTC_MAX_FEE_RATE: number;
  readonly TL_URL?: string;
  readonly TL_TOKEN?: string;
  readonly TL_TOKEN_FILE?: string;
  readonly TL_CONCURRENCY: number;
  readonly ANCHOR_UPSTREAM_TIMEOUT_MS: number;
  readonly DATABASE_SCHEMA?: string;
  readonly ANCHOR_TEST_CRASH_AFTER_SEND: boolean;
}

const GROUPS = [
  { chain: 'ethereum', variables: ['ETH_RPC_URL', 'ETH_CHAIN_ID', 'ETH_CONTRACT', 'ETH_PRIVATE_KEY'] },
  { chain: 'bitcoin', variables: ['BTC_ESPLORA_URL', 'BTC_PRIVATE_KEY'] },
  { chain: 'transparency-log', variables: ['TL_URL'] },
] as const;

/**
 * Validates the environment. A chain is configured when its variables are set; a partial set is an
 * error naming the missing ones. With no chain at all the service still starts (health and receipts
 * answer; POST /anchor refuses every chain), so a fresh stack boots on its embedded defaults.
 */
export function loadAnchorConfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
): AnchorConfig {
  const config = loadConfig<AnchorConfig>(ANCHOR_ENV, env);
  const record = config as unknown as Record<string, unknown>;
  for (const group of GROUPS) {
    const missing = group.variables.filter((v) => record[v] === undefined);
    if (missing.length === group.variables.length) continue;
    if (missing.length > 0) {
      throw new ConfigError(`${group.chain} anchoring needs ${missing.join(', ')} as well`, missing);
    }
  }
  refusePublishedLogUrl(config.TL_URL);
  refuseUnparsableEsploraUrl(config.BTC_ESPLORA_URL);
  if (config.ETH_GAS_LIMIT !== undefined && config.ETH_GAS_LIMIT < ETH_GAS_LIMIT_FLOOR) {
    throw new ConfigError(
      `ETH_GAS_LIMIT (${config.ETH_GAS_LIMIT}) is below ${ETH_GAS_LIMIT_FLOOR}, the least gas the anchor call runs with (21000 is a plain transfer's; the call adds its data and its event): every write would fail at the chain. Raise ETH_GAS_LIMIT, or unset it to sign the node's estimate + 25%`,
      ['ETH_GAS_LIMIT'],
    );
  }
  if (config.ETH_GAS_LIMIT !== undefined && config.ETH_GAS_LIMIT > config.ETH_MAX_CALL_GAS) {
    // Numbers only: neither is a secret, and the message says which one to change.
    throw new ConfigError(
      `ETH_GAS_LIMIT (${config.ETH_GAS_LIMIT}) must not exceed ETH_MAX_CALL_GAS (${config.ETH_MAX_CALL_GAS}), the most gas the anchor call is taken to need: lower ETH_GAS_LIMIT, or raise ETH_MAX_CALL_GAS (at most ${ETH_GAS_CEILING}) if the chain really needs it`,
      ['ETH_GAS_LIMIT', 'ETH_MAX_CALL_GAS'],
    );
  }
  return config;
}

/**
 * P481: TL_URL is public: it is the `log_url` of /health's chain list and of every transparency-log receipt, which
 * GET /anchor/:hash gives anyone. A URL carrying userinfo would publish the credential (P610 keeps this refusal though
 * fetchBounded could now send it as Basic), and a query or fragment is lost when the adapter's paths are appended. The messages never repeat the URL:
 * its userinfo or query is most likely a credential.
 */
function refusePublishedLogUrl(url: string | undefined): void {
  if (url === undefined) return;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('TL_URL is not a URL (value not shown)', ['TL_URL']);
  }
  if (parsed.username !== '' || parsed.password !== '' || /^[a-z]+:\/\/[^/?#]*@/i.test(url)) {
    throw new ConfigError(
      'TL_URL must not carry credentials ("user:password@"): it is published in /health and every log receipt; ' +
        "remove them and give the log's operator token in TL_TOKEN or TL_TOKEN_FILE",
      ['TL_URL'],
    );
  }
  if (parsed.search !== '' || parsed.hash !== '' || /[?#]/.test(url)) {
    throw new ConfigError(
      "TL_URL must be the log's base URL without a query or fragment (value not shown): it is published in /health and every log receipt, and the log's paths are appended to it",
      ['TL_URL'],
    );
  }
}

/**
 * P487, P610: a BTC_ESPLORA_URL that does not parse is refused without repeating it (its userinfo or path may hold a
 * credential). One with `user:password@` is taken: fetchBounded sends the userinfo as Basic authorization to that
 * origin alone (P580), the URL is published nowhere (/health names the network and the address, a receipt the
 * transaction), and the logger scrubs the value (P496, P541).
 */
function refuseUnparsableEsploraUrl(url: string | undefined): void {
  if (url === undefined || URL.canParse(url)) return;
  throw new ConfigError('BTC_ESPLORA_URL is not a URL (value not shown)', ['BTC_ESPLORA_URL']);
}
