// Bitcoin receipt check against an Esplora explorer's answers (raw transaction, status, tip). DECISIONS D19.
import { fromHex } from '../encoding/index.ts';
import { parseBitcoinTransaction } from './bitcoin-tx.ts';
import {
  ANCHOR_CHECK_CODES,
  type AnchorCheck,
  anchorFail,
  isoSeconds,
  needConfirmations,
  notYetSent,
  type PreparedReceipt,
  sameInstant,
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
