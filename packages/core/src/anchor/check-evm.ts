// EVM receipt check against a node's answers (transaction receipt with its Anchored log, tip block). DECISIONS D19.

import {
  ANCHOR_CHECK_CODES,
  type AnchorCheck,
  anchorFail,
  anchorSkipped,
  isoSeconds,
  needConfirmations,
  notYetSent,
  type PreparedReceipt,
  sameInstant,
  sourceMalformed,
} from './check-outcome.ts';
import { decodeAnchoredLog, rpcQuantity } from './event.ts';
import type { EvmAnchorReceipt } from './receipt.ts';

/** The node's answers as it gave them: anything that is not of the expected shape is judged here (P161). */
export interface EvmChainData {
  /** `eth_chainId` (a quantity), when the receipt names a chain id. */
  readonly chainId?: unknown;
  /** `eth_getTransactionReceipt` result (null when the node does not know the transaction). */
  readonly txReceipt: unknown;
  /** `eth_blockNumber` (a quantity). */
  readonly tipBlock: unknown;
}

/** A JSON-RPC quantity, a safe integer or a bigint in range, as a number; undefined otherwise. */
function quantity(value: unknown): number | undefined {
  if (typeof value === 'bigint')
    return value >= 0n && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : undefined;
  return rpcQuantity(value);
}

/** What a transaction receipt must hold to be read at all; a string says what it lacks (P161). */
function readTxReceipt(
  tx: object,
  txId: string,
): { status: number; block: number; logs: readonly unknown[] } | string {
  if (Array.isArray(tx)) return 'the node answered with a list, not a transaction receipt';
  const t = tx as Record<string, unknown>;
  const hash = t['transactionHash'];
  if (hash !== undefined && typeof hash !== 'string')
    return 'the transaction receipt has no valid transactionHash';
  if (typeof hash === 'string' && hash.toLowerCase() !== txId.toLowerCase())
    return 'the node answered for another transaction';
  const status = rpcQuantity(t['status']);
  if (status !== 0 && status !== 1) return 'the transaction receipt has no valid status (0x0 or 0x1)';
  const block = rpcQuantity(t['blockNumber']);
  if (block === undefined) return 'the transaction receipt lacks a valid block number';
  const logs = t['logs'];
  if (!Array.isArray(logs) || !logs.every((log) => typeof log === 'object' && log !== null))
    return 'the transaction receipt logs are not a list of log objects';
  return { status, block, logs };
}

/**
 * Checks an EVM receipt against the node's answers: the transaction succeeded, and the log at
 * `event_index` (block-wide) was emitted by `contract` with topic0 = Anchored and topic1 = the committed
 * value. A confirmed receipt must also match the block number and the event's timestamp.
 */
export function checkEvmChainData(
  prepared: PreparedReceipt,
  data: EvmChainData,
  minConfirmations = 1,
): AnchorCheck {
  const r = prepared.parsed.receipt as EvmAnchorReceipt;
  const kind = 'evm' as const;
  if (r.tx_id === undefined) return notYetSent(prepared);
  const chainId = data.chainId === undefined ? undefined : quantity(data.chainId);
  if (r.chain_id !== undefined && data.chainId !== undefined && chainId === undefined) {
    return sourceMalformed('the node answered eth_chainId without a chain id', kind);
  }
  if (r.chain_id !== undefined && chainId !== undefined && chainId !== r.chain_id) {
    return anchorSkipped(
      `the RPC serves chain id ${chainId}, the receipt names ${r.chain_id}`,
      ANCHOR_CHECK_CODES.noSource,
      false,
      { kind },
    );
  }
  const tx = data.txReceipt;
  // null is the node's well-formed "unknown transaction"; any other non-object is not an answer (P161).
  if (tx === null || tx === undefined) {
    if (r.status === 'confirmed' || r.block_number !== undefined) {
      return anchorFail(`the chain has no transaction ${r.tx_id}`, undefined, { kind });
    }
    return notYetSent(prepared);
  }
  if (typeof tx !== 'object')
    return sourceMalformed(`the node answered ${typeof tx}, not a transaction receipt`, kind);
  const read = readTxReceipt(tx, r.tx_id);
  if (typeof read === 'string') return sourceMalformed(read, kind);
  const { block, logs } = read;
  if (read.status !== 1) return anchorFail(`transaction ${r.tx_id} reverted`, undefined, { kind });
  const tip = quantity(data.tipBlock);
  if (tip === undefined)
    return sourceMalformed("the node's tip (eth_blockNumber) is not a block number", kind);
  const warnings = [...prepared.warnings];
  const finalReceipt = r.status === 'confirmed';
  if (r.block_number !== undefined && r.block_number !== block) {
    if (finalReceipt)
      return anchorFail(`transaction is in block ${block}, the receipt says ${r.block_number}`, undefined, {
        kind,
      });
    warnings.push(`pending receipt named block ${r.block_number}; the transaction is now in block ${block}`);
  }
  const anchored = logs
    .map((log) => decodeAnchoredLog(log))
    .filter((d) => d.ok)
    .map((d) => d.value)
    .filter((d) => d.contract === r.contract.toLowerCase() && d.anchored === prepared.committed);
  if (anchored.length === 0) {
    return anchorFail(
      `transaction ${r.tx_id} emits no Anchored(${prepared.committed}) from ${r.contract}`,
      undefined,
      { kind },
    );
  }
  let event = anchored[0]!;
  if (r.event_index !== undefined) {
    const atIndex = anchored.find((a) => a.logIndex === r.event_index);
    if (atIndex === undefined) {
      if (finalReceipt)
        return anchorFail(`log ${r.event_index} is not the Anchored event of this receipt`, undefined, {
          kind,
        });
      warnings.push(`pending receipt named log ${r.event_index}; the event is log ${event.logIndex}`);
    } else {
      event = atIndex;
    }
  }
  if (
    r.anchored_at !== undefined &&
    finalReceipt &&
    !sameInstant(r.anchored_at, isoSeconds(event.timestamp))
  ) {
    return anchorFail(
      `the event's timestamp is ${isoSeconds(event.timestamp)}, the receipt says ${r.anchored_at}`,
      undefined,
      { kind },
    );
  }
  const check = needConfirmations(
    { ...prepared, warnings },
    Math.max(0, tip - block + 1),
    minConfirmations,
    `transaction ${r.tx_id}`,
  );
  return check;
}
