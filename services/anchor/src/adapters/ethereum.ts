// EVM adapter: one `anchor(root)` call per batch on our ProtoAnchor contract, signed locally and sent through any JSON-RPC node.
// SPEC.md "Anchoring formats" (contract event), DECISIONS D19 (block-wide log index, tx hash in receipts); client: viem.
import { boundedHttpTransport } from '@proto/clients/json-rpc-transport';
import { isRfc3339Second } from '@proto/core';
import type { AnchorBatch, AnchorItem, WriteIntent } from '@proto/store';
import {
  BaseError,
  type Chain,
  createPublicClient,
  defineChain,
  Eip1559FeesNotSupportedError,
  encodeFunctionData,
  getAddress,
  type Hex,
  HttpRequestError,
  keccak256,
  type PublicClient,
  parseAbi,
  parseTransaction,
  RpcRequestError,
  TimeoutError,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type Transport,
} from 'viem';
import { type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { DEFAULT_ETH_MAX_CALL_GAS } from '../config.ts';
import { ANCHORED_EVENT_TOPIC0 } from '../core.ts';
import { bumpedFees, cappedFees, type EvmFees, type EvmWriteDetail, replacedTxIds } from './evm-fee-bump.ts';
import type { BroadcastResult, ChainAdapter, PrepareContext, TrackResult } from './types.ts';
import { TransientError } from './types.ts';

/** The two entries of contracts/ProtoAnchor.sol the service uses (a test compares them with solc's ABI). */
export const ANCHOR_ABI = parseAbi([
  'function anchor(bytes32 bundleHash)',
  'event Anchored(bytes32 indexed bundleHash, uint256 timestamp)',
]);

export interface EthereumAdapterOptions {
  /** Chain name in requests and receipts (ETH_CHAIN_NAME). */
  readonly name: string;
  readonly rpcUrl: string;
  readonly chainId: number;
  readonly contract: string;
  readonly privateKey: string;
  readonly confirmations: number;
  readonly gasLimit?: number | undefined;
  /** The most gas an estimate of the call may name (ETH_MAX_CALL_GAS, P215; default MAX_ANCHOR_CALL_GAS). */
  readonly maxCallGas?: number | undefined;
  /** Each JSON-RPC exchange, body included (ANCHOR_UPSTREAM_TIMEOUT_MS; default 10 s). */
  readonly timeoutMs?: number;
  /** A write still unmined this long after it was sent is replaced with higher fees (P64); 0 or absent: never. */
  readonly bumpAfterMs?: number;
  /** Highest fee per gas (gas price or max fee) a replacement may offer, in gwei (default 500). */
  readonly maxFeeGwei?: number;
}

function isTransport(error: unknown): boolean {
  return (
    error instanceof BaseError &&
    error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError) !== null
  );
}

function describeError(error: unknown): string {
  if (error instanceof BaseError) return `${error.shortMessage}${error.details ? ` (${error.details})` : ''}`;
  return error instanceof Error ? error.message : String(error);
}

/** The node answered the call with a JSON-RPC error: its own word on the request (a revert, an unknown method). */
function isNodeError(error: unknown): boolean {
  return error instanceof BaseError && error.walk((e) => e instanceof RpcRequestError) !== null;
}

/** A check of a read's result: what is wrong with it, or undefined when it is what the method returns. */
type ResultCheck<T> = (value: T) => string | undefined;

/**
 * Runs an RPC read. Transport failures become TransientError (the worker retries on its next turn), and so does a
 * sound envelope around a result that is not what the method returns (P184): viem's own reading of it (a hex
 * quantity, a receipt's fields) throws TypeErrors, SyntaxErrors or its own errors, and `check` refuses what viem
 * lets through. Such an answer says nothing of the chain, so it may neither fail a write for good nor end a pass
 * as broken. Only the node's JSON-RPC errors pass through as they are.
 */
async function rpc<T>(what: string, call: () => Promise<T>, check?: ResultCheck<T>): Promise<T> {
  let value: T;
  try {
    value = await call();
  } catch (error) {
    if (isTransport(error)) throw new TransientError(`${what}: ${describeError(error)}`, { cause: error });
    if (isNodeError(error)) throw error;
    throw new TransientError(`${what}: malformed answer (${describeError(error).slice(0, 200)})`, {
      cause: error,
    });
  }
  const problem = check?.(value);
  if (problem !== undefined) throw new TransientError(`${what}: malformed answer (${problem})`);
  return value;
}

const UINT256_LIMIT = 2n ** 256n;
/**
 * The most gas an estimate of our one contract call may name unless ETH_MAX_CALL_GAS says otherwise (P196, P215; the
 * bounds and why are in config.ts). An estimate above the ceiling is not a price of that call: the node (or whatever
 * answers for it) is unreliable, and a write signed with it would spend an attempt on the node's refusal (above the
 * block gas limit) or reserve gas for nothing. ETH_GAS_LIMIT, when set, is used as given, never estimated (config
 * refuses one above the ceiling).
 */
export const MAX_ANCHOR_CALL_GAS = BigInt(DEFAULT_ETH_MAX_CALL_GAS);
const HASH32 = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** The Anchored event's data: one uint256 (the block timestamp). */
const ONE_WORD = /^0x[0-9a-fA-F]{64}$/;

const isSafeCount = (n: unknown): boolean => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
const isQuantity = (n: unknown): boolean => typeof n === 'bigint' && n >= 0n && n < UINT256_LIMIT;
const isSafeQuantity = (n: unknown): boolean =>
  typeof n === 'bigint' && n >= 0n && n <= BigInt(Number.MAX_SAFE_INTEGER);

const checkNonce: ResultCheck<number> = (n) => (isSafeCount(n) ? undefined : `nonce ${String(n)}`);
/** The estimate is raised by 25 % before it is signed; the ceiling keeps that far inside a uint64 (P184). */
const checkGasUpTo =
  (ceiling: bigint): ResultCheck<bigint> =>
  (gas) => {
    if (typeof gas !== 'bigint' || gas <= 0n) return 'gas estimate out of range';
    if (gas > ceiling)
      return `gas estimate ${gas > UINT256_LIMIT ? 'past 2^256' : String(gas)} above the ${ceiling} an anchor call can need (ETH_MAX_CALL_GAS)`;
    return undefined;
  };
/**
 * A transaction looked up by hash (P196): its presence is read as "the node holds our write" (pending, or found on
 * chain by the reconciliation), so it must be the transaction asked for, not another one or one without a hash.
 */
const checkTransactionFor =
  (hash: string): ResultCheck<{ hash?: unknown } | null> =>
  (tx) => {
    if (tx === null) return undefined;
    if (typeof tx !== 'object') return 'transaction is not an object';
    if (typeof tx.hash !== 'string' || tx.hash.toLowerCase() !== hash.toLowerCase())
      return `transaction ${typeof tx.hash === 'string' ? tx.hash.slice(0, 80) : 'without hash'} is not ${hash}`;
    return undefined;
  };
const checkGasPrice: ResultCheck<bigint> = (price) =>
  isQuantity(price) ? undefined : 'gas price out of range';
const checkFees: ResultCheck<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | undefined> = (fees) =>
  fees === undefined || (isQuantity(fees.maxFeePerGas) && isQuantity(fees.maxPriorityFeePerGas))
    ? undefined
    : 'fee per gas out of range';
const checkBlockNumber: ResultCheck<bigint> = (n) =>
  isSafeQuantity(n) ? undefined : 'block number past 2^53';

/** What the adapter reads of a receipt, checked field by field: viem formats whatever the node sent. */
function receiptProblem(receipt: unknown): string | undefined {
  if (receipt === null) return undefined;
  if (typeof receipt !== 'object') return 'receipt is not an object';
  const r = receipt as Record<string, unknown>;
  if (r['status'] !== 'success' && r['status'] !== 'reverted') return 'receipt status is neither 0x0 nor 0x1';
  if (!isSafeQuantity(r['blockNumber'])) return 'receipt block number';
  if (typeof r['blockHash'] !== 'string' || !HASH32.test(r['blockHash'])) return 'receipt block hash';
  const logs = r['logs'];
  if (!Array.isArray(logs)) return 'receipt logs are not a list';
  for (const log of logs as unknown[]) {
    if (typeof log !== 'object' || log === null) return 'receipt log is not an object';
    const l = log as Record<string, unknown>;
    if (typeof l['address'] !== 'string' || !ADDRESS.test(l['address'])) return 'receipt log address';
    const topics = l['topics'];
    if (!Array.isArray(topics) || !topics.every((t) => typeof t === 'string' && HASH32.test(t)))
      return 'receipt log topics';
    if (typeof l['data'] !== 'string' || !/^0x(?:[0-9a-fA-F]{2})*$/.test(l['data']))
      return 'receipt log data';
    if (!isSafeCount(l['logIndex'])) return 'receipt log index';
  }
  return undefined;
}

export class EthereumAdapter implements ChainAdapter {
  readonly name: string;
  readonly kind = 'evm' as const;
  readonly confirmationsRequired: number;
  readonly batches = true;
  readonly #client: PublicClient<Transport, Chain>;
  readonly #account: PrivateKeyAccount;
  readonly #contract: `0x${string}`;
  readonly #chainId: number;
  readonly #gasLimit: bigint | undefined;
  readonly #checkGas: ResultCheck<bigint>;
  readonly #bumpAfterMs: number;
  readonly #maxFeeWei: bigint;

  constructor(options: EthereumAdapterOptions) {
    this.name = options.name;
    this.#bumpAfterMs = options.bumpAfterMs ?? 0;
    this.#maxFeeWei = BigInt(options.maxFeeGwei ?? 500) * 1_000_000_000n;
    this.confirmationsRequired = options.confirmations;
    this.#chainId = options.chainId;
    this.#contract = getAddress(options.contract);
    this.#gasLimit = options.gasLimit === undefined ? undefined : BigInt(options.gasLimit);
    this.#checkGas = checkGasUpTo(
      options.maxCallGas === undefined ? MAX_ANCHOR_CALL_GAS : BigInt(options.maxCallGas),
    );
    const key = (options.privateKey.startsWith('0x') ? options.privateKey : `0x${options.privateKey}`) as Hex;
    this.#account = privateKeyToAccount(key);
    const chain = defineChain({
      id: options.chainId,
      name: options.name,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [options.rpcUrl] } },
    });
    this.#client = createPublicClient({
      chain,
      // Each request one bounded exchange (P167): ANCHOR_UPSTREAM_TIMEOUT_MS covers the body, the answer is cut
      // at 16 MiB and a redirect refused, each a transport fault the worker retries (P155, P168, P177).
      transport: boundedHttpTransport(options.rpcUrl, { timeoutMs: options.timeoutMs ?? 10_000 }),
    });
  }

  describe(): Record<string, unknown> {
    return {
      kind: this.kind,
      chain_id: this.#chainId,
      contract: this.#contract,
      account: this.#account.address,
      confirmations: this.confirmationsRequired,
    };
  }

  async balance(): Promise<{ currency: string; amount: number }> {
    const address = this.#account.address;
    const wei = await rpc('balance', () => this.#client.getBalance({ address }));
    return { currency: 'ETH', amount: Number(wei) / 1e18 };
  }

  async ready(): Promise<void> {
    // Through rpc() (P184): a fault of the exchange or a malformed id is the chain unreachable, as for every read.
    const chainId = await rpc('chain id', () => this.#client.getChainId(), checkNonce);
    if (chainId !== this.#chainId)
      throw new Error(`RPC serves chain id ${chainId}, ETH_CHAIN_ID is ${this.#chainId}`);
  }

  async prepare(
    batch: AnchorBatch,
    _items: readonly AnchorItem[],
    context: PrepareContext,
  ): Promise<WriteIntent> {
    const client = this.#client;
    const from = this.#account.address;
    const pending = await rpc(
      'nonce',
      () => client.getTransactionCount({ address: from, blockTag: 'pending' }),
      checkNonce,
    );
    // A write we stored but the node does not count yet keeps its nonce; the next one follows it.
    const nonce = Math.max(pending, ...context.inFlightNonces.map((n) => n + 1));
    const data = encodeFunctionData({ abi: ANCHOR_ABI, functionName: 'anchor', args: [`0x${batch.root}`] });
    const gas =
      this.#gasLimit ??
      ((await rpc(
        'gas estimate',
        () => client.estimateGas({ account: from, to: this.#contract, data }),
        this.#checkGas,
      )) *
        125n) /
        100n;
    let quoted: EvmFees;
    try {
      const estimate = await this.#eip1559Fees();
      quoted =
        estimate === undefined
          ? { gasPrice: await rpc('gas price', () => client.getGasPrice(), checkGasPrice) }
          : estimate;
    } catch (error) {
      if (error instanceof TransientError) throw error;
      // The node refused the fee calls (no eth_maxPriorityFeePerGas on a pre-London chain): a legacy gas price.
      quoted = { gasPrice: await rpc('gas price', () => client.getGasPrice(), checkGasPrice) };
    }
    const fees = cappedFees(quoted, this.#maxFeeWei);
    const base = { chainId: this.#chainId, nonce, to: this.#contract, data, gas };
    const rawTx =
      'gasPrice' in fees
        ? await this.#account.signTransaction({ ...base, type: 'legacy', gasPrice: fees.gasPrice })
        : await this.#account.signTransaction({ ...base, type: 'eip1559', ...fees });
    return { txId: keccak256(rawTx), rawTx, nonce };
  }

  /**
   * P64: the replacement of a write still unmined ETH_BUMP_AFTER_MS after it was sent: the same call at the same
   * nonce, fees raised by at least 12.5 % (or to the current estimate), at most ETH_MAX_FEE_GWEI. Undefined when
   * not due or when the cap leaves no room; the replaced ids are kept so the one mined after all is recognised.
   */
  async bump(batch: AnchorBatch, now: Date): Promise<WriteIntent | undefined> {
    if (this.#bumpAfterMs <= 0 || batch.sent_at === null || batch.tx_id === null || batch.raw_tx === null)
      return undefined;
    if (now.getTime() - Date.parse(batch.sent_at) < this.#bumpAfterMs) return undefined;
    const tx = parseTransaction(batch.raw_tx as Hex);
    if (tx.nonce === undefined || tx.to == null || tx.gas === undefined) return undefined;
    let old: EvmFees;
    if (tx.type === 'legacy' && tx.gasPrice !== undefined) old = { gasPrice: tx.gasPrice };
    else if (tx.type === 'eip1559' && tx.maxFeePerGas !== undefined && tx.maxPriorityFeePerGas !== undefined)
      old = { maxFeePerGas: tx.maxFeePerGas, maxPriorityFeePerGas: tx.maxPriorityFeePerGas };
    else return undefined;
    const fees = bumpedFees(old, await this.#currentFees(old), this.#maxFeeWei);
    if (fees === undefined) return undefined;
    const base = { chainId: this.#chainId, nonce: tx.nonce, to: tx.to, data: tx.data, gas: tx.gas };
    const rawTx =
      'gasPrice' in fees
        ? await this.#account.signTransaction({ ...base, type: 'legacy', gasPrice: fees.gasPrice })
        : await this.#account.signTransaction({ ...base, type: 'eip1559', ...fees });
    const detail: EvmWriteDetail = { replaces: [...replacedTxIds(batch.detail), batch.tx_id] };
    return { txId: keccak256(rawTx), rawTx, nonce: tx.nonce, detail };
  }

  /**
   * The EIP-1559 fee estimate; undefined on a chain whose blocks carry no base fee (it takes a legacy gas price).
   * viem calls that case an error of its own, which rpc() would take for a malformed answer: it is told apart here.
   */
  async #eip1559Fees(): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint } | undefined> {
    const estimate = await rpc(
      'fees',
      () =>
        this.#client.estimateFeesPerGas({ type: 'eip1559' }).catch((error: unknown) => {
          if (error instanceof Eip1559FeesNotSupportedError) return undefined;
          throw error;
        }),
      checkFees,
    );
    return estimate === undefined
      ? undefined
      : { maxFeePerGas: estimate.maxFeePerGas, maxPriorityFeePerGas: estimate.maxPriorityFeePerGas };
  }

  /**
   * The chain's fee estimate in the original's model, read through rpc() like every other read (P184); undefined
   * when it cannot be had, whatever the reason (unreachable, malformed, refused): the replacement then offers the
   * 12.5 % every node requires (P64), which is what a bump needs; waiting for an estimate would leave it stuck.
   */
  async #currentFees(old: EvmFees): Promise<Partial<EvmFees> | undefined> {
    try {
      if ('gasPrice' in old)
        return { gasPrice: await rpc('gas price', () => this.#client.getGasPrice(), checkGasPrice) };
      return await this.#eip1559Fees();
    } catch {
      return undefined;
    }
  }

  async broadcast(batch: AnchorBatch): Promise<BroadcastResult> {
    if (batch.raw_tx === null || batch.tx_id === null)
      return { ok: false, definitive: true, error: 'no stored transaction' };
    try {
      await this.#client.sendRawTransaction({ serializedTransaction: batch.raw_tx as Hex });
      return { ok: true };
    } catch (error) {
      if (isTransport(error)) return { ok: false, definitive: false, error: describeError(error) };
      const message = describeError(error).toLowerCase();
      if (/already known|known transaction|already imported|already exists|alreadyknown/.test(message)) {
        return { ok: true };
      }
      if (/nonce too low|nonce has already been used|oldnonce/.test(message)) {
        // Either our own transaction is already mined, or another one used the nonce: the chain decides.
        const where = await this.track(batch).catch(() => undefined);
        if (where === undefined) return { ok: false, definitive: false, error: describeError(error) };
        if (where.state === 'included' || where.state === 'pending') return { ok: true };
        return { ok: false, definitive: true, error: describeError(error) };
      }
      // Funds, fee and replacement problems clear up by themselves or by the operator: send the same bytes later.
      if (
        /insufficient funds|underpriced|fee too low|max fee per gas less than block base fee|txpool is full/.test(
          message,
        )
      ) {
        return { ok: false, definitive: false, error: describeError(error) };
      }
      return { ok: false, definitive: true, error: describeError(error) };
    }
  }

  async track(batch: AnchorBatch): Promise<TrackResult> {
    if (batch.tx_id === null) return { state: 'unknown' };
    const where = await this.#trackTx(batch, batch.tx_id);
    if (where.state !== 'unknown') return where;
    // P64: a fee bump raced the original into a block (same nonce: only one of them can be mined).
    for (const replaced of replacedTxIds(batch.detail)) {
      const earlier = await this.#trackTx(batch, replaced);
      if (earlier.state === 'included') return { ...earlier, txId: replaced };
    }
    return where;
  }

  async #trackTx(batch: AnchorBatch, txId: string): Promise<TrackResult> {
    const hash = txId as Hex;
    const client = this.#client;
    const receipt = await rpc(
      'receipt',
      () =>
        client.getTransactionReceipt({ hash }).catch((error: unknown) => {
          if (error instanceof TransactionReceiptNotFoundError) return null;
          throw error;
        }),
      receiptProblem,
    );
    if (receipt === null) {
      const tx = await rpc(
        'transaction',
        () =>
          client.getTransaction({ hash }).catch((error: unknown) => {
            if (error instanceof TransactionNotFoundError) return null;
            throw error;
          }),
        checkTransactionFor(hash),
      );
      return tx === null ? { state: 'unknown' } : { state: 'pending' };
    }
    if (receipt.status !== 'success') return { state: 'failed', error: `transaction ${hash} reverted` };
    const topic1 = `0x${batch.root}`;
    const log = receipt.logs.find(
      (l) =>
        l.address.toLowerCase() === this.#contract.toLowerCase() &&
        l.topics[0]?.toLowerCase() === ANCHORED_EVENT_TOPIC0 &&
        l.topics[1]?.toLowerCase() === topic1,
    );
    if (log === undefined)
      return { state: 'failed', error: `transaction ${hash} emitted no Anchored(${batch.root})` };
    // The event's one word is the block's timestamp; one no RFC 3339 time can name is no answer of a chain.
    const seconds = ONE_WORD.test(log.data) ? BigInt(log.data) : undefined;
    if (seconds === undefined || !isRfc3339Second(seconds))
      throw new TransientError(`receipt: malformed answer (Anchored event data ${log.data.slice(0, 80)})`);
    const tip = await rpc('block number', () => client.getBlockNumber({ cacheTime: 0 }), checkBlockNumber);
    const blockNumber = Number(receipt.blockNumber);
    return {
      state: 'included',
      blockNumber,
      blockHash: receipt.blockHash,
      eventIndex: log.logIndex,
      anchoredAt: new Date(Number(seconds) * 1000).toISOString(),
      confirmations: Math.max(0, Number(tip) - blockNumber + 1),
    };
  }

  receipt(_item: AnchorItem, batch: AnchorBatch | undefined) {
    const fields: Record<string, unknown> = {
      chain: this.name,
      chain_id: this.#chainId,
      contract: this.#contract,
    };
    if (batch?.tx_id) fields['tx_id'] = batch.tx_id;
    if (batch?.block_number !== null && batch?.block_number !== undefined)
      fields['block_number'] = batch.block_number;
    if (batch?.event_index !== null && batch?.event_index !== undefined)
      fields['event_index'] = batch.event_index;
    return { fields, batchFields: true };
  }
}
