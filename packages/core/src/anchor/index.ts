// Public API of anchoring: receipts, batch trees and paths, OP_RETURN payloads, the Anchored event, pure chain checks.
// SPEC.md "Anchor receipt", "Anchoring formats", "Events"; DECISIONS D4, D19.
export {
  type AnchorBatchTree,
  anchoredLeafHash,
  anchorLeafHash,
  buildAnchorBatch,
  bundleHashDigest,
  secondaryHashDigest,
  verifyAnchorInclusion,
} from './batch.ts';
export { type BitcoinTxOutput, type ParsedBitcoinTx, parseBitcoinTransaction } from './bitcoin-tx.ts';
export { prepareReceiptCheck } from './check.ts';
export { type BitcoinChainData, checkBitcoinChainData } from './check-bitcoin.ts';
export { checkEvmChainData, type EvmChainData } from './check-evm.ts';
export { checkLogProofData } from './check-log.ts';
export {
  ANCHOR_CHECK_CODES,
  type AnchorCheck,
  type AnchorCheckStatus,
  anchorFail,
  anchorPass,
  anchorSkipped,
  type PreparedReceipt,
  sourceMalformed,
} from './check-outcome.ts';
export {
  ANCHOR_FUNCTION_SELECTOR,
  ANCHOR_FUNCTION_SIGNATURE,
  ANCHORED_EVENT_SIGNATURE,
  ANCHORED_EVENT_TOPIC0,
  type AnchoredLog,
  decodeAnchoredLog,
  rpcQuantity,
} from './event.ts';
export {
  DEFAULT_FINAL_CONFIRMATIONS,
  DEFAULT_FINAL_CONFIRMATIONS_TEXT,
  type FinalConfirmations,
  finalConfirmationsFor,
  parseFinalConfirmations,
} from './final-confirmations.ts';
export {
  type AnchorPayload,
  type AnchorPayloadVersion,
  buildAnchorPayload,
  MAX_OP_RETURN_DATA,
  opReturnData,
  opReturnScript,
  parseAnchorPayload,
} from './payload.ts';
export {
  ANCHOR_STATUSES,
  type AnchorReceipt,
  type AnchorReceiptCommon,
  type AnchorReceiptKind,
  type AnchorStatus,
  anchorReceiptKind,
  type BitcoinAnchorReceipt,
  type EvmAnchorReceipt,
  type LogAnchorReceipt,
  type ParsedAnchorReceipt,
  parseAnchorReceipt,
  type ReceiptInclusion,
  receiptNamesSecondary,
} from './receipt.ts';
