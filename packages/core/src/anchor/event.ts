// The contract event `Anchored(bytes32 indexed bundleHash, uint256 timestamp)`: its topic, calldata selector, log decoding.
// SPEC.md "Events" and "Anchoring formats" (contract chain), DECISIONS D19 (indexed hash, block-wide log index).
import { keccak_256 } from '@noble/hashes/sha3.js';
import { toHex, utf8Encode } from '../encoding/index.ts';
import { coreError, err, ok, type Result } from '../result.ts';

export const ANCHORED_EVENT_SIGNATURE = 'Anchored(bytes32,uint256)';
export const ANCHOR_FUNCTION_SIGNATURE = 'anchor(bytes32)';

/** keccak256 of the event signature: the log's topic0 (0xfde54488…b3c1). */
export const ANCHORED_EVENT_TOPIC0: `0x${string}` = `0x${toHex(keccak_256(utf8Encode(ANCHORED_EVENT_SIGNATURE)))}`;

/** First four bytes of keccak256("anchor(bytes32)"): the calldata selector. */
export const ANCHOR_FUNCTION_SELECTOR: `0x${string}` = `0x${toHex(
  keccak_256(utf8Encode(ANCHOR_FUNCTION_SIGNATURE)).slice(0, 4),
)}`;

/** One decoded `Anchored` log as an EVM JSON-RPC node reports it. */
export interface AnchoredLog {
  /** Emitting contract, lowercase 0x address. */
  readonly contract: string;
  /** The anchored value (topic1), 64 lowercase hex without 0x. */
  readonly anchored: string;
  /** The event's `timestamp` argument (the block time, seconds). */
  readonly timestamp: bigint;
  /** Block-wide log index (JSON-RPC `logIndex`). */
  readonly logIndex: number;
}

const HEX32_WORD = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** A JSON-RPC quantity (`0x1a`) or a safe integer, as a number; undefined otherwise. */
export function rpcQuantity(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{1,16}$/.test(value)) return undefined;
  const n = Number.parseInt(value.slice(2), 16);
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * Decodes a JSON-RPC log object as an `Anchored` event: topic0 must be ANCHORED_EVENT_TOPIC0, exactly
 * two topics, and `data` exactly one 32-byte word. Anything else is an error result.
 */
export function decodeAnchoredLog(log: unknown): Result<AnchoredLog> {
  if (typeof log !== 'object' || log === null)
    return err(coreError('ARTIFACT_SCHEMA_INVALID', 'log is not an object'));
  const { address, topics, data, logIndex } = log as Record<string, unknown>;
  if (typeof address !== 'string' || !ADDRESS.test(address)) {
    return err(coreError('ARTIFACT_SCHEMA_INVALID', 'log has no valid address'));
  }
  if (
    !Array.isArray(topics) ||
    topics.length !== 2 ||
    !topics.every((t) => typeof t === 'string' && HEX32_WORD.test(t))
  ) {
    return err(coreError('ARTIFACT_SCHEMA_INVALID', 'log does not have the two topics of Anchored'));
  }
  if ((topics[0] as string).toLowerCase() !== ANCHORED_EVENT_TOPIC0) {
    return err(coreError('ARTIFACT_SCHEMA_INVALID', 'log topic0 is not Anchored(bytes32,uint256)'));
  }
  if (typeof data !== 'string' || !HEX32_WORD.test(data)) {
    return err(coreError('ARTIFACT_SCHEMA_INVALID', 'log data is not one 32-byte word'));
  }
  const index = rpcQuantity(logIndex);
  if (index === undefined) return err(coreError('ARTIFACT_SCHEMA_INVALID', 'log has no valid logIndex'));
  return ok({
    contract: address.toLowerCase(),
    anchored: (topics[1] as string).slice(2).toLowerCase(),
    timestamp: BigInt(data),
    logIndex: index,
  });
}
