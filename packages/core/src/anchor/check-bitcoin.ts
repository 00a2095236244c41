// Bitcoin receipt check against an Esplora explorer's answers (raw transaction, status, tip). DECISIONS D19.
import { fromHex } from '../encoding/index.ts';
import { parseBitcoinTransaction } from './bitcoin-tx.ts';
import {
  type AnchorCheck,
  anchorFail,
  isoSeconds,
  needConfirmations,
  notYetSent,
  type PreparedReceipt,
  sameInstant,
  sourceMalformed,
} from './check-outcome.ts';
import { opReturnData, parseAnchorPayload } from './payload.ts';
import type { BitcoinAnchorReceipt } from './receipt.ts';

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
  // An answer that is not a transaction, or is another transaction than asked, is the explorer at fault (P161).
  if (raw === undefined) return sourceMalformed('explorer returned no transaction hex', kind);
  const tx = parseBitcoinTransaction(raw);
  if (!tx.ok) return sourceMalformed(`explorer's transaction: ${tx.error.message}`, kind);
  if (tx.value.txid !== r.tx_id) {
    return sourceMalformed(
      `the explorer answered for another transaction (${tx.value.txid}, not ${r.tx_id})`,
      kind,
    );
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
  const status = data.status as Record<string, unknown> | null;
  if (typeof status !== 'object' || status === null || typeof status['confirmed'] !== 'boolean') {
    return sourceMalformed('explorer status is not {confirmed: boolean, …}', kind);
  }
  const warnings = [...prepared.warnings];
  if (!status['confirmed']) {
    if (r.status === 'confirmed')
      return anchorFail(`transaction ${r.tx_id} is not in a block`, undefined, { kind });
    return needConfirmations({ ...prepared, warnings }, 0, minConfirmations, `transaction ${r.tx_id}`);
  }
  const height = status['block_height'];
  if (typeof height !== 'number' || !Number.isSafeInteger(height) || height < 0) {
    return sourceMalformed('explorer status lacks block_height', kind);
  }
  if (r.block_height !== undefined && r.block_height !== height) {
    if (r.status === 'confirmed')
      return anchorFail(`transaction is in block ${height}, the receipt says ${r.block_height}`, undefined, {
        kind,
      });
    warnings.push(`pending receipt named block ${r.block_height}; the transaction is now in block ${height}`);
  }
  const blockTime = status['block_time'];
  if (blockTime !== undefined && (typeof blockTime !== 'number' || !Number.isSafeInteger(blockTime))) {
    return sourceMalformed('explorer status has a block_time that is not a number of seconds', kind);
  }
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
