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
} from './check-outcome.ts';
import { decodeAnchoredLog, rpcQuantity } from './event.ts';
import type { EvmAnchorReceipt } from './receipt.ts';

export interface EvmChainData {
  /** `eth_chainId`, when the receipt names a chain id. */
  readonly chainId?: number | bigint | string;
  /** `eth_getTransactionReceipt` result (null when the node does not know the transaction). */
  readonly txReceipt: unknown;
  /** `eth_blockNumber`. */
  readonly tipBlock: number | bigint | string;
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
  if (r.chain_id !== undefined && data.chainId !== undefined && Number(data.chainId) !== r.chain_id) {
    return anchorSkipped(
      `the RPC serves chain id ${Number(data.chainId)}, the receipt names ${r.chain_id}`,
      ANCHOR_CHECK_CODES.noSource,
      false,
      { kind },
    );
  }
  const tx = data.txReceipt as Record<string, unknown> | null | undefined;
  if (tx === null || tx === undefined || typeof tx !== 'object') {
    if (r.status === 'confirmed' || r.block_number !== undefined) {
      return anchorFail(`the chain has no transaction ${r.tx_id}`, undefined, { kind });
    }
    return notYetSent(prepared);
  }
  if (
    typeof tx['transactionHash'] === 'string' &&
    tx['transactionHash'].toLowerCase() !== r.tx_id.toLowerCase()
  ) {
    return anchorFail('the node answered for another transaction', ANCHOR_CHECK_CODES.malformed, { kind });
  }
  if (rpcQuantity(tx['status']) !== 1)
    return anchorFail(`transaction ${r.tx_id} reverted`, undefined, { kind });
  const block = rpcQuantity(tx['blockNumber']);
  const tip = rpcQuantity(typeof data.tipBlock === 'bigint' ? Number(data.tipBlock) : data.tipBlock);
  if (block === undefined || tip === undefined)
    return anchorFail('node answer lacks block numbers', ANCHOR_CHECK_CODES.malformed, { kind });
  const warnings = [...prepared.warnings];
  const finalReceipt = r.status === 'confirmed';
  if (r.block_number !== undefined && r.block_number !== block) {
    if (finalReceipt)
      return anchorFail(`transaction is in block ${block}, the receipt says ${r.block_number}`, undefined, {
        kind,
      });
    warnings.push(`pending receipt named block ${r.block_number}; the transaction is now in block ${block}`);
  }
  const logs = Array.isArray(tx['logs']) ? (tx['logs'] as unknown[]) : [];
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
