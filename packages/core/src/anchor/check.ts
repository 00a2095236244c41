// Receipt checks against public data, pure: the bundle's place in the batch, then what an EVM node, an Esplora
// explorer or a log returned. DECISIONS D19 (recompute, check the path, read the chain) and D12 (check values).
import { fromHex, toHex } from '../encoding/index.ts';
import type { ErrorName } from '../errors.ts';
import { rfc9162LeafHash, verifyRfc9162Inclusion } from '../merkle/index.ts';
import { err, ok, type Result } from '../result.ts';
import { bundleHashDigest, verifyAnchorInclusion } from './batch.ts';
import { parseBitcoinTransaction } from './bitcoin-tx.ts';
import { decodeAnchoredLog, rpcQuantity } from './event.ts';
import { opReturnData, parseAnchorPayload } from './payload.ts';
import {
  type BitcoinAnchorReceipt,
  type EvmAnchorReceipt,
  type LogAnchorReceipt,
  type ParsedAnchorReceipt,
  parseAnchorReceipt,
} from './receipt.ts';

export type AnchorCheckStatus = 'pass' | 'fail' | 'skipped';

/**
 * Outcome of a receipt check. `fail`: the receipt contradicts the hash or the chain. `skipped`: nothing
 * could be decided (source unreachable, not yet anchored or confirmed, no source configured); `retryable`
 * says whether asking again later may decide it.
 */
export interface AnchorCheck {
  readonly status: AnchorCheckStatus;
  readonly message: string;
  /** Registry name; absent only on `pass`. */
  readonly code?: ErrorName;
  readonly retryable: boolean;
  readonly warnings: readonly string[];
  readonly kind?: ParsedAnchorReceipt['kind'];
  /** Confirmations the source reported. */
  readonly confirmations?: number;
}

/**
 * Codes used by anchor checks (registry names, rendered with the profile's prefix):
 * contradiction E202, malformed receipt or chain answer E002, source unreachable E701 (retryable),
 * not anchored or confirmed yet E702 (retryable), no source configured for the chain E901.
 */
export const ANCHOR_CHECK_CODES = {
  contradiction: 'MERKLE_ROOT_MISMATCH',
  malformed: 'ARTIFACT_SCHEMA_INVALID',
  unreachable: 'CIRCUIT_OPEN',
  notYet: 'BACKPRESSURE',
  noSource: 'ALGORITHM_UNAVAILABLE',
} as const satisfies Record<string, ErrorName>;

export function anchorPass(message: string, extra: Partial<AnchorCheck> = {}): AnchorCheck {
  return { status: 'pass', message, retryable: false, warnings: [], ...extra };
}

export function anchorFail(
  message: string,
  code: ErrorName = ANCHOR_CHECK_CODES.contradiction,
  extra: Partial<AnchorCheck> = {},
): AnchorCheck {
  return { status: 'fail', message, code, retryable: false, warnings: [], ...extra };
}

export function anchorSkipped(
  message: string,
  code: ErrorName,
  retryable: boolean,
  extra: Partial<AnchorCheck> = {},
): AnchorCheck {
  return {
    status: 'skipped',
    message,
    code,
    retryable,
    ...extra,
    warnings: [message, ...(extra.warnings ?? [])],
  };
}

/** A receipt that passed the offline checks: what the chain must show. */
export interface PreparedReceipt {
  readonly parsed: ParsedAnchorReceipt;
  /** The 32-byte value the chain must carry (batch root, or the digest itself for an unbatched receipt), hex. */
  readonly committed: string;
  readonly warnings: readonly string[];
}

/**
 * Offline part of every receipt check: parse, compare the receipt's `bundle_hash` with the recomputed
 * one, and check the Merkle path to the batch root. Returns what the chain must show, or the failing check.
 */
export function prepareReceiptCheck(
  receipt: unknown,
  bundleHash: string,
): Result<PreparedReceipt, AnchorCheck> {
  const digest = bundleHashDigest(bundleHash);
  if (digest === undefined) {
    return err(anchorFail('bundle hash must be sha256:<64 lowercase hex>', ANCHOR_CHECK_CODES.malformed));
  }
  const parsed = parseAnchorReceipt(receipt);
  if (!parsed.ok) return err(anchorFail(parsed.error.message, ANCHOR_CHECK_CODES.malformed));
  const { kind, receipt: r, inclusion } = parsed.value;
  if (r.bundle_hash !== undefined && r.bundle_hash !== bundleHash) {
    return err(anchorFail(`receipt is for ${r.bundle_hash}, not for ${bundleHash}`, undefined, { kind }));
  }
  if (r.status === 'failed') return err(anchorFail('receipt reports a failed anchor', undefined, { kind }));
  const warnings: string[] = [];
  if (inclusion !== undefined) {
    if (
      !verifyAnchorInclusion(
        bundleHash,
        inclusion.leafIndex,
        inclusion.batchSize,
        inclusion.path,
        inclusion.root,
      )
    ) {
      return err(
        anchorFail('the Merkle path does not lead from the bundle hash to batch_root', undefined, { kind }),
      );
    }
    return ok({ parsed: parsed.value, committed: inclusion.root, warnings });
  }
  if (kind === 'log') {
    warnings.push('log receipt carries no root: inclusion is checked online only');
    return ok({ parsed: parsed.value, committed: '', warnings });
  }
  // SPEC.md: without a batch the chain carries the 32-byte digest itself.
  return ok({ parsed: parsed.value, committed: toHex(digest), warnings });
}

function needConfirmations(
  prepared: PreparedReceipt,
  confirmations: number,
  minConfirmations: number,
  what: string,
): AnchorCheck {
  const base = { kind: prepared.parsed.kind, confirmations };
  if (confirmations < minConfirmations) {
    return anchorSkipped(
      `${what} has ${confirmations} confirmation(s), ${minConfirmations} required`,
      ANCHOR_CHECK_CODES.notYet,
      true,
      { ...base, warnings: prepared.warnings },
    );
  }
  return anchorPass(`${what} confirmed (${confirmations} confirmation(s))`, {
    ...base,
    warnings: [...prepared.warnings],
  });
}

function notYetSent(prepared: PreparedReceipt): AnchorCheck {
  return anchorSkipped('receipt is pending: nothing written on chain yet', ANCHOR_CHECK_CODES.notYet, true, {
    kind: prepared.parsed.kind,
  });
}

function isoSeconds(seconds: bigint | number): string {
  return new Date(Number(seconds) * 1000).toISOString();
}

function sameInstant(a: string, b: string): boolean {
  return Date.parse(a) === Date.parse(b);
}

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

export interface BitcoinChainData {
  /** The raw transaction (`GET /tx/:txid/hex`), bytes or hex. */
  readonly rawTx: Uint8Array | string;
  /** `GET /tx/:txid/status`: `{confirmed, block_height?, block_time?}`. */
  readonly status: unknown;
  /** `GET /blocks/tip/height`. */
  readonly tipHeight: number;
}

/**
 * Checks a Bitcoin-style receipt against an explorer's answers: the raw transaction hashes to `tx_id`,
 * one of its OP_RETURN outputs carries the committed value (prefixed payload or 32 bytes), and a confirmed
 * receipt's `block_height` is where the explorer puts it.
 */
export function checkBitcoinChainData(
  prepared: PreparedReceipt,
  data: BitcoinChainData,
  minConfirmations = 1,
): AnchorCheck {
  const r = prepared.parsed.receipt as BitcoinAnchorReceipt;
  const kind = 'bitcoin' as const;
  if (r.tx_id === undefined) return notYetSent(prepared);
  const raw = typeof data.rawTx === 'string' ? fromHex(data.rawTx.trim().toLowerCase()) : data.rawTx;
  if (raw === undefined)
    return anchorFail('explorer returned no transaction hex', ANCHOR_CHECK_CODES.malformed, { kind });
  const tx = parseBitcoinTransaction(raw);
  if (!tx.ok) return anchorFail(tx.error.message, ANCHOR_CHECK_CODES.malformed, { kind });
  if (tx.value.txid !== r.tx_id) {
    return anchorFail(`the explorer's transaction hashes to ${tx.value.txid}, not ${r.tx_id}`, undefined, {
      kind,
    });
  }
  const payloads = tx.value.outputs
    .map((o) => opReturnData(o.script))
    .filter((d): d is Uint8Array => d !== undefined)
    .map((d) => parseAnchorPayload(d))
    .filter((p) => p.ok)
    .map((p) => p.value);
  if (!payloads.some((p) => p.hex === prepared.committed)) {
    return anchorFail(
      `transaction ${r.tx_id} carries no OP_RETURN payload for ${prepared.committed}`,
      undefined,
      { kind },
    );
  }
  const status = (data.status ?? {}) as Record<string, unknown>;
  const warnings = [...prepared.warnings];
  if (status['confirmed'] !== true) {
    if (r.status === 'confirmed')
      return anchorFail(`transaction ${r.tx_id} is not in a block`, undefined, { kind });
    return needConfirmations({ ...prepared, warnings }, 0, minConfirmations, `transaction ${r.tx_id}`);
  }
  const height = status['block_height'];
  if (typeof height !== 'number' || !Number.isSafeInteger(height) || height < 0) {
    return anchorFail('explorer status lacks block_height', ANCHOR_CHECK_CODES.malformed, { kind });
  }
  if (r.block_height !== undefined && r.block_height !== height) {
    if (r.status === 'confirmed')
      return anchorFail(`transaction is in block ${height}, the receipt says ${r.block_height}`, undefined, {
        kind,
      });
    warnings.push(`pending receipt named block ${r.block_height}; the transaction is now in block ${height}`);
  }
  const blockTime = status['block_time'];
  if (
    r.status === 'confirmed' &&
    r.anchored_at !== undefined &&
    typeof blockTime === 'number' &&
    !sameInstant(r.anchored_at, isoSeconds(blockTime))
  ) {
    return anchorFail(
      `the block time is ${isoSeconds(blockTime)}, the receipt says ${r.anchored_at}`,
      undefined,
      { kind },
    );
  }
  return needConfirmations(
    { ...prepared, warnings },
    Math.max(0, data.tipHeight - height + 1),
    minConfirmations,
    `transaction ${r.tx_id}`,
  );
}

/**
 * Checks a log receipt against the log's `GET /proof/:log_index?tree_size=N` answer (D18:
 * `{log_index, tree_size, leaf_hash, proof[], root}`): the leaf is the bundle's, the proof leads to the
 * root, and that root is the receipt's `batch_root` at its tree size.
 */
export function checkLogProofData(
  prepared: PreparedReceipt,
  bundleHash: string,
  answer: unknown,
): AnchorCheck {
  const r = prepared.parsed.receipt as LogAnchorReceipt;
  const kind = 'log' as const;
  const logIndex = r.log_index ?? r.leaf_index;
  if (logIndex === undefined) return notYetSent(prepared);
  const a = (answer ?? {}) as Record<string, unknown>;
  const proof = a['proof'];
  const size = a['tree_size'];
  const root = a['root'];
  const leafHash = a['leaf_hash'];
  if (
    !Array.isArray(proof) ||
    typeof size !== 'number' ||
    typeof root !== 'string' ||
    !proof.every((p) => typeof p === 'string' && /^[0-9a-f]{64}$/.test(p)) ||
    !/^[0-9a-f]{64}$/.test(root)
  ) {
    return anchorFail('the log answered without {tree_size, proof[], root}', ANCHOR_CHECK_CODES.malformed, {
      kind,
    });
  }
  const digest = bundleHashDigest(bundleHash) as Uint8Array;
  const leaf = rfc9162LeafHash(digest);
  if (typeof leafHash === 'string' && leafHash !== toHex(leaf)) {
    return anchorFail(`log entry ${logIndex} holds another hash`, undefined, { kind });
  }
  const ok = verifyRfc9162Inclusion(
    leaf,
    logIndex,
    size,
    proof.map((p) => fromHex(p as string) as Uint8Array),
    fromHex(root) as Uint8Array,
  );
  if (!ok)
    return anchorFail(`the log does not include the bundle hash at index ${logIndex}`, undefined, { kind });
  const inclusion = prepared.parsed.inclusion;
  if (inclusion !== undefined && inclusion.batchSize === size && inclusion.root !== root) {
    return anchorFail(`the log's root at size ${size} is not the receipt's batch_root`, undefined, { kind });
  }
  const warnings = [...prepared.warnings];
  if (inclusion !== undefined && inclusion.batchSize !== size) {
    warnings.push(`log answered at tree size ${size}; the receipt's root is for size ${inclusion.batchSize}`);
  }
  return anchorPass(`log includes the bundle hash at index ${logIndex} (tree size ${size})`, {
    kind,
    confirmations: 1,
    warnings,
  });
}
