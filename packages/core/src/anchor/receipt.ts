// Anchor receipts: SPEC.md's three shapes (Bitcoin-style, contract chain, transparency log) plus D19's status and batch path.
// SPEC.md "Anchor receipt", DECISIONS D19 (status, confirmations, batch root and Merkle path in every receipt).
import { coreError, err, ok, type Result } from '../result.ts';

/**
 * `pending`: nothing on chain yet (queued, or sent back after its block left the best chain); `submitted`: written
 * (in the mempool, or in a block short of the confirmations depth); `confirmed`: at depth; `failed`: refused.
 * `submitted` is issue 18's addition (P50): receipts stored before it read `pending` for the same stage.
 */
export type AnchorStatus = 'pending' | 'submitted' | 'confirmed' | 'failed';
export const ANCHOR_STATUSES: readonly AnchorStatus[] = ['pending', 'submitted', 'confirmed', 'failed'];

export type AnchorReceiptKind = 'bitcoin' | 'evm' | 'log';

/** Fields every receipt of ours carries beside SPEC.md's shape (D19). Optional when reading others' receipts. */
export interface AnchorReceiptCommon {
  /** The anchored bundle hash, `sha256:<64 hex>`. */
  readonly bundle_hash?: string;
  readonly status?: AnchorStatus;
  /** Blocks including and after the one holding the transaction (0 while unmined; 1 for a stored log entry). */
  readonly confirmations?: number;
  /** ISO 8601 time of the including block (or of the log entry). */
  readonly anchored_at?: string;
  /** RFC 9162 root the path leads to (the value written on chain, or the log's root), 64 hex. */
  readonly batch_root?: string;
  /** Leaves under `batch_root` (the log's tree size for log receipts). */
  readonly batch_size?: number;
  /** Index of this bundle's leaf under `batch_root`. */
  readonly leaf_index?: number;
  /** RFC 9162 inclusion path, sibling nearest the leaf first, 64 hex each. */
  readonly merkle_path?: readonly string[];
  /** V2 (P51): the bundle's SHA3-256 hash, `sha3-256:<64 hex>`, anchored as a leaf of the same batch. */
  readonly bundle_hash_secondary?: string;
  /** Index of the secondary hash's leaf under `batch_root`. */
  readonly leaf_index_secondary?: number;
  /** RFC 9162 path of the secondary hash's leaf to `batch_root`. */
  readonly merkle_path_secondary?: readonly string[];
}

/** SPEC.md "Bitcoin-style chain": `chain`, `network`, `tx_id`, `block_height`, Merkle proof when batched. */
export interface BitcoinAnchorReceipt extends AnchorReceiptCommon {
  readonly chain: string;
  readonly network?: string;
  readonly tx_id?: string;
  readonly block_height?: number;
}

/** SPEC.md "Contract chain": `chain`, `contract`, `tx_id`, `block_number`, `event_index` (block-wide log index, D19). */
export interface EvmAnchorReceipt extends AnchorReceiptCommon {
  readonly chain: string;
  readonly chain_id?: number;
  readonly contract: string;
  readonly tx_id?: string;
  readonly block_number?: number;
  readonly event_index?: number;
}

/** SPEC.md "Transparency log": `log_url`, `log_index`, `merkle_proof`, optional `root_anchor`. */
export interface LogAnchorReceipt extends AnchorReceiptCommon {
  readonly log_url: string;
  readonly log_index?: number;
  readonly merkle_proof?: readonly string[];
  readonly root_anchor?: { readonly chain: string; readonly tx_id: string; readonly block_height: number };
}

export type AnchorReceipt = BitcoinAnchorReceipt | EvmAnchorReceipt | LogAnchorReceipt;

/** Where a receipt's bundle sits: leaf `leafIndex` of `batchSize`, path `path` to `root`. */
export interface ReceiptInclusion {
  readonly leafIndex: number;
  readonly batchSize: number;
  readonly path: readonly string[];
  readonly root: string;
  /** The secondary (SHA3-256) hash's place under the same root, when the receipt anchors one. */
  readonly secondary?: {
    readonly hash: string;
    readonly leafIndex: number;
    readonly path: readonly string[];
  };
}

export type ParsedAnchorReceipt =
  | {
      readonly kind: 'bitcoin';
      readonly receipt: BitcoinAnchorReceipt;
      readonly inclusion?: ReceiptInclusion;
    }
  | { readonly kind: 'evm'; readonly receipt: EvmAnchorReceipt; readonly inclusion?: ReceiptInclusion }
  | { readonly kind: 'log'; readonly receipt: LogAnchorReceipt; readonly inclusion?: ReceiptInclusion };

const HEX64 = /^[0-9a-f]{64}$/;
const EVM_TX = /^0x[0-9a-fA-F]{64}$/;
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BUNDLE_HASH = /^sha256:[0-9a-f]{64}$/;
const SECONDARY_HASH = /^sha3-256:[0-9a-f]{64}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const MAX_PATH = 64;

/** Which of SPEC.md's three shapes a receipt has: `log_url` → log, `contract` → EVM, else Bitcoin-style. */
export function anchorReceiptKind(value: Record<string, unknown>): AnchorReceiptKind {
  if ('log_url' in value) return 'log';
  if ('contract' in value) return 'evm';
  return 'bitcoin';
}

/**
 * Whether checking `receipt` needs the bundle's SHA3-256 hash (P74): only a receipt naming a
 * `bundle_hash_secondary` is compared with it (`prepareReceiptCheck`), and the member is read as `common`
 * reads it (absent or null: not named). Anything else, a malformed receipt included, is checked without it.
 */
export function receiptNamesSecondary(receipt: unknown): boolean {
  if (typeof receipt !== 'object' || receipt === null || Array.isArray(receipt)) return false;
  const named = (receipt as Record<string, unknown>)['bundle_hash_secondary'];
  return named !== undefined && named !== null;
}

class ReceiptError extends Error {}

function fail(message: string): never {
  throw new ReceiptError(message);
}

function count(r: Record<string, unknown>, key: string): number | undefined {
  const v = r[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    fail(`${key} must be a non-negative integer`);
  return v;
}

function text(r: Record<string, unknown>, key: string, pattern?: RegExp): string | undefined {
  const v = r[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v.length === 0 || v.length > 2048) fail(`${key} must be a non-empty string`);
  if (pattern && !pattern.test(v)) fail(`${key} is not in the expected form`);
  return v;
}

function hashList(r: Record<string, unknown>, key: string): string[] | undefined {
  const v = r[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.length > MAX_PATH) fail(`${key} must be an array of at most ${MAX_PATH} hashes`);
  for (const h of v)
    if (typeof h !== 'string' || !HEX64.test(h)) fail(`${key} entries must be 64 lowercase hex`);
  return v as string[];
}

function common(r: Record<string, unknown>): AnchorReceiptCommon {
  const status = r['status'];
  if (status !== undefined && !ANCHOR_STATUSES.includes(status as AnchorStatus)) {
    fail('status must be pending, submitted, confirmed or failed');
  }
  const out: Record<string, unknown> = {};
  const put = (key: string, value: unknown) => {
    if (value !== undefined) out[key] = value;
  };
  put('bundle_hash', text(r, 'bundle_hash', BUNDLE_HASH));
  put('status', status);
  put('confirmations', count(r, 'confirmations'));
  put('anchored_at', text(r, 'anchored_at', ISO_TIME));
  put('batch_root', text(r, 'batch_root', HEX64));
  put('batch_size', count(r, 'batch_size'));
  put('leaf_index', count(r, 'leaf_index'));
  put('merkle_path', hashList(r, 'merkle_path'));
  put('bundle_hash_secondary', text(r, 'bundle_hash_secondary', SECONDARY_HASH));
  put('leaf_index_secondary', count(r, 'leaf_index_secondary'));
  put('merkle_path_secondary', hashList(r, 'merkle_path_secondary'));
  return out as AnchorReceiptCommon;
}

function inclusionOf(c: AnchorReceiptCommon, log?: LogAnchorReceipt): ReceiptInclusion | undefined {
  const leafIndex = c.leaf_index ?? log?.log_index;
  const path = c.merkle_path ?? log?.merkle_proof;
  const parts = [c.batch_root, c.batch_size, leafIndex, path];
  const present = parts.filter((p) => p !== undefined).length;
  if (present === 0) {
    // A pending receipt names the secondary hash it will anchor; its place comes with the batch.
    if (c.leaf_index_secondary !== undefined || c.merkle_path_secondary !== undefined)
      fail('leaf_index_secondary and merkle_path_secondary need batch_root');
    return undefined;
  }
  // A log receipt in SPEC.md's bare shape (index and proof, no root) can only be checked online.
  if (log !== undefined && c.batch_root === undefined && c.batch_size === undefined) return undefined;
  if (present !== parts.length) fail('batch_root, batch_size, leaf_index and merkle_path go together');
  if ((leafIndex as number) >= (c.batch_size as number)) fail('leaf_index must be below batch_size');
  const inclusion = {
    leafIndex: leafIndex as number,
    batchSize: c.batch_size as number,
    path: path as string[],
    root: c.batch_root as string,
  };
  const secondary = [c.bundle_hash_secondary, c.leaf_index_secondary, c.merkle_path_secondary];
  const secondaryPresent = secondary.filter((p) => p !== undefined).length;
  if (secondaryPresent === 0) return inclusion;
  if (secondaryPresent !== secondary.length)
    fail('bundle_hash_secondary, leaf_index_secondary and merkle_path_secondary go together');
  if ((c.leaf_index_secondary as number) >= inclusion.batchSize)
    fail('leaf_index_secondary must be below batch_size');
  if (c.leaf_index_secondary === inclusion.leafIndex) fail('the two hashes cannot share a leaf');
  return {
    ...inclusion,
    secondary: {
      hash: c.bundle_hash_secondary as string,
      leafIndex: c.leaf_index_secondary as number,
      path: c.merkle_path_secondary as string[],
    },
  };
}

function parseOrThrow(value: unknown): ParsedAnchorReceipt {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('receipt must be an object');
  const r = value as Record<string, unknown>;
  const base = common(r);
  const kind = anchorReceiptKind(r);
  if (kind === 'log') {
    const receipt: Record<string, unknown> = { ...base, log_url: text(r, 'log_url') };
    if (!/^https?:\/\//.test(receipt['log_url'] as string)) fail('log_url must be an http(s) URL');
    const logIndex = count(r, 'log_index');
    const proof = hashList(r, 'merkle_proof');
    if (logIndex !== undefined) receipt['log_index'] = logIndex;
    if (proof !== undefined) receipt['merkle_proof'] = proof;
    if (logIndex !== undefined && base.leaf_index !== undefined && logIndex !== base.leaf_index) {
      fail('log_index and leaf_index differ');
    }
    if (proof !== undefined && base.merkle_path !== undefined && proof.join() !== base.merkle_path.join()) {
      fail('merkle_proof and merkle_path differ');
    }
    const anchor = r['root_anchor'];
    if (anchor !== undefined && anchor !== null) {
      if (typeof anchor !== 'object' || Array.isArray(anchor)) fail('root_anchor must be an object');
      const a = anchor as Record<string, unknown>;
      const chain = text(a, 'chain');
      const txId = text(a, 'tx_id');
      const height = count(a, 'block_height');
      if (chain === undefined || txId === undefined || height === undefined) {
        fail('root_anchor needs chain, tx_id and block_height');
      }
      receipt['root_anchor'] = { chain, tx_id: txId, block_height: height };
    }
    const log = receipt as unknown as LogAnchorReceipt;
    const inclusion = inclusionOf(base, log);
    return inclusion ? { kind, receipt: log, inclusion } : { kind, receipt: log };
  }
  const chain = text(r, 'chain');
  if (chain === undefined) fail('chain is required');
  if (kind === 'evm') {
    const receipt: Record<string, unknown> = { ...base, chain, contract: text(r, 'contract', EVM_ADDRESS) };
    const fields = {
      chain_id: count(r, 'chain_id'),
      tx_id: text(r, 'tx_id', EVM_TX),
      block_number: count(r, 'block_number'),
      event_index: count(r, 'event_index'),
    };
    for (const [k, v] of Object.entries(fields)) if (v !== undefined) receipt[k] = v;
    const evm = receipt as unknown as EvmAnchorReceipt;
    const inclusion = inclusionOf(base);
    return inclusion ? { kind, receipt: evm, inclusion } : { kind, receipt: evm };
  }
  const receipt: Record<string, unknown> = { ...base, chain };
  const fields = {
    network: text(r, 'network'),
    tx_id: text(r, 'tx_id', HEX64),
    block_height: count(r, 'block_height'),
  };
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) receipt[k] = v;
  const btc = receipt as unknown as BitcoinAnchorReceipt;
  const inclusion = inclusionOf(base);
  return inclusion ? { kind, receipt: btc, inclusion } : { kind, receipt: btc };
}

/**
 * Validates a receipt (ours or any SPEC.md-shaped one) and says where its bundle sits in a batch.
 * Unknown extra fields are dropped; a malformed field is an ARTIFACT_SCHEMA_INVALID error, never a throw.
 */
export function parseAnchorReceipt(value: unknown): Result<ParsedAnchorReceipt> {
  try {
    return ok(parseOrThrow(value));
  } catch (cause) {
    if (cause instanceof ReceiptError) {
      return err(coreError('ARTIFACT_SCHEMA_INVALID', `anchor receipt: ${cause.message}`));
    }
    throw cause;
  }
}
