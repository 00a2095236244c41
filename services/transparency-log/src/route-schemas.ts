// JSON schemas of the transparency log's HTTP routes (request bodies and responses).
// Implements docs/architecture.md §4 (the log's API).
import { errorResponses } from '@proto/service-kit';
export const HEX32 = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;
export const INDEX = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;
export const TIMESTAMP = { type: 'string', description: 'ISO 8601' } as const;

/** `{bundle_hash}` and nothing else (SPEC.md "Transparency log service"; P270: another member is a 400, not dropped). */
export const addBody = {
  type: 'object',
  required: ['bundle_hash'],
  additionalProperties: false,
  properties: { bundle_hash: { type: 'string', description: 'sha256:<64 lowercase hex>' } },
} as const;

export const addResponse = {
  type: 'object',
  required: ['log_index', 'timestamp', 'leaf_hash', 'tree_size'],
  properties: {
    log_index: INDEX,
    timestamp: { ...TIMESTAMP, description: 'When the leaf was sequenced (first time, for a repeat)' },
    leaf_hash: { ...HEX32, description: 'SHA-256(0x00 ‖ 32 digest bytes)' },
    tree_size: {
      ...INDEX,
      description: 'Tree size after the batch that committed the leaf (the leaf is inside it)',
    },
  },
} as const;

export const proofResponse = {
  type: 'object',
  required: ['log_index', 'tree_size', 'leaf_hash', 'proof', 'root'],
  properties: {
    log_index: INDEX,
    tree_size: INDEX,
    leaf_hash: HEX32,
    proof: { type: 'array', items: HEX32, description: 'RFC 9162 inclusion path, leaf side first' },
    root: HEX32,
  },
} as const;

export const rootResponse = {
  type: 'object',
  required: ['root', 'tree_size', 'timestamp'],
  properties: {
    root: HEX32,
    tree_size: INDEX,
    timestamp: { ...TIMESTAMP, description: 'When the tree last grew' },
  },
} as const;

export const rootAnchorSchema = {
  type: 'object',
  properties: {
    tree_size: INDEX,
    root: HEX32,
    bundle_hash: { type: 'string' },
    chain: { type: ['string', 'null'] },
    tx_id: { type: ['string', 'null'] },
    block_height: { type: ['integer', 'null'] },
    status: { type: 'string', enum: ['pending', 'confirmed'] },
    anchored_at: TIMESTAMP,
    receipt: { description: 'The anchor service answer, as received' },
  },
} as const;

export const signedRootResponse = {
  type: 'object',
  required: ['root', 'tree_size', 'timestamp', 'origin', 'checkpoint', 'verifier_keys', 'signatures'],
  properties: {
    root: HEX32,
    tree_size: INDEX,
    timestamp: { ...TIMESTAMP, description: 'When the checkpoint was signed' },
    origin: { type: 'string' },
    checkpoint: { type: 'string', description: 'C2SP tlog-checkpoint signed note (also GET /checkpoint)' },
    verifier_keys: {
      type: 'array',
      items: { type: 'string' },
      description: 'C2SP verifier keys: Ed25519 (type 0x01), ML-DSA-65 (0xFF + identifier, see README)',
    },
    signatures: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          alg: { type: 'string', enum: ['ed25519', 'ml-dsa-65'] },
          key_name: { type: 'string' },
          key_id: { type: 'string', pattern: '^[0-9a-f]{8}$' },
          signature: { type: 'string', description: 'base64, without the 4-byte key ID' },
        },
      },
    },
    root_anchor: rootAnchorSchema,
  },
} as const;

export const consistencyResponse = {
  type: 'object',
  required: ['first', 'second', 'proof', 'first_root', 'second_root'],
  properties: {
    first: INDEX,
    second: INDEX,
    proof: { type: 'array', items: HEX32, description: 'RFC 9162 consistency proof' },
    first_root: HEX32,
    second_root: HEX32,
  },
} as const;

export const entriesResponse = {
  type: 'object',
  required: ['start', 'end', 'tree_size', 'entries'],
  properties: {
    start: INDEX,
    end: { ...INDEX, description: 'Exclusive; clamped to the page limit and the tree size' },
    tree_size: INDEX,
    entries: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          log_index: INDEX,
          bundle_hash: { type: 'string' },
          leaf_hash: HEX32,
          timestamp: TIMESTAMP,
        },
      },
    },
  },
} as const;

export const TEXT_RESPONSE = { 200: { type: 'string' }, ...errorResponses } as const;
