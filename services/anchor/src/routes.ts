// HTTP API of the anchor service: POST /anchor (operator token, D22) and GET /anchor/:bundle_hash (latest receipt).
// SPEC.md "POST {base_url}/anchor", "Anchor receipt"; DECISIONS D19 (status), D22 (bearer token for writes).

import {
  errorResponses,
  httpError,
  type OperatorTokens,
  operatorTokenGuard,
  protocolError,
} from '@proto/service-kit';
import type { AnchorRepository } from '@proto/store';
import type { FastifyInstance } from 'fastify';
import type { ChainAdapter } from './adapters/types.ts';
import type { BacklogGate } from './backlog.ts';
import { CHAIN_NAME_PATTERN } from './config.ts';
import { buildReceipt } from './receipts.ts';
import { type AnchorWorker, batchTree } from './worker.ts';

const BUNDLE_HASH_PATTERN = '^sha256:[0-9a-f]{64}$';
const SECONDARY_HASH_PATTERN = '^sha3-256:[0-9a-f]{64}$';

const receiptSchema = {
  type: 'object',
  description:
    "SPEC.md's receipt shape for the chain (Bitcoin-style, contract chain or transparency log) plus bundle_hash, status, confirmations, anchored_at, batch_root, batch_size, leaf_index, merkle_path",
  additionalProperties: true,
} as const;

const receiptResponse = {
  type: 'object',
  required: ['anchor_receipt'],
  properties: { anchor_receipt: receiptSchema },
} as const;

export interface AnchorRoutesOptions {
  readonly repo: AnchorRepository;
  readonly adapters: ReadonlyMap<string, ChainAdapter>;
  readonly worker: AnchorWorker;
  readonly tokens: OperatorTokens;
  readonly mode: 'batch' | 'individual';
  /** Chain of a request that names none (ANCHOR_DEFAULT_CHAIN, or the only configured chain). */
  readonly defaultChain: string | undefined;
  /** individual mode: longest wait for the write (ANCHOR_WAIT_MS). */
  readonly waitMs: number;
  /** Bounds each chain's unsent requests (ANCHOR_MAX_BACKLOG). */
  readonly backlog: BacklogGate;
  /** Seconds a pushed-back client is told to wait. */
  readonly retryAfterSeconds: number;
}

/**
 * Members are strings (SPEC.md "POST {base_url}/anchor", P251): bodies are validated as sent, never coerced (P259).
 * No other member (P270): SPEC names no extension, and one the caller thinks steers the write would be ignored.
 */
const ANCHOR_BODY = {
  type: 'object',
  required: ['bundle_hash'],
  additionalProperties: false,
  properties: {
    bundle_hash: {
      type: 'string',
      pattern: BUNDLE_HASH_PATTERN,
      description: 'sha256:<64 lowercase hex>',
    },
    bundle_hash_secondary: {
      type: 'string',
      pattern: SECONDARY_HASH_PATTERN,
      description:
        'V2: the bundle hash under SHA3-256, sha3-256:<64 lowercase hex>, anchored as a leaf of the same batch (EVM and Bitcoin chains)',
    },
    chain: {
      type: 'string',
      minLength: 1,
      maxLength: 64,
      description: 'A chain listed by GET /health (default: ANCHOR_DEFAULT_CHAIN, or the only chain)',
    },
  },
} as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function registerAnchorRoutes(app: FastifyInstance, options: AnchorRoutesOptions): void {
  const { repo, adapters, worker } = options;
  const guard = operatorTokenGuard(options.tokens);

  async function current(bundleHash: string, chain: string | undefined) {
    const latest = await repo.latest(bundleHash, chain);
    if (latest === undefined) return undefined;
    return { ...latest, receipt: buildReceipt(adapters.get(latest.item.chain), latest.item, latest.batch) };
  }

  /** individual mode: until the request's write is on its way (sent), decided, or the wait is over. */
  async function waitForWrite(bundleHash: string, chain: string): Promise<void> {
    const deadline = Date.now() + options.waitMs;
    while (Date.now() < deadline) {
      const latest = await repo.latest(bundleHash, chain);
      const state = latest?.batch?.state;
      if (latest?.item.state === 'failed' || state === 'sent' || state === 'confirmed' || state === 'failed')
        return;
      await sleep(50);
      if (latest?.item.state === 'queued') void worker.run(chain, false);
    }
  }

  app.post(
    '/anchor',
    {
      onRequest: guard,
      schema: {
        summary: 'Anchor a bundle hash on a configured chain',
        description:
          'Needs the operator bearer token (D22). batch mode: 202 with a pending receipt, written with its batch. individual mode: 200 once the write is sent.',
        tags: ['anchoring'],
        security: [{ bearerAuth: [] }],
        body: ANCHOR_BODY,
        response: { 200: receiptResponse, 202: receiptResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      const body = request.body as { bundle_hash: string; bundle_hash_secondary?: string; chain?: string };
      const secondary = body.bundle_hash_secondary;
      const bundleHash = body.bundle_hash;
      const chain = body.chain ?? options.defaultChain;
      if (chain === undefined) {
        throw httpError(
          'BAD_REQUEST',
          options.adapters.size === 0
            ? 'no chain is configured on this anchor service (see its README: ETH_*, BTC_*, TL_URL)'
            : 'name the chain: this anchor service has several',
          {
            details: { configured: [...adapters.keys()] },
          },
        );
      }
      const adapter = adapters.get(chain);
      if (adapter === undefined) {
        throw httpError(
          'BAD_REQUEST',
          `chain ${JSON.stringify(chain)} is not configured on this anchor service`,
          {
            details: { configured: [...adapters.keys()] },
          },
        );
      }
      if (secondary !== undefined && !adapter.batches) {
        // The log stores one SHA-256 entry per request; it has no tree of ours to hold a second leaf.
        throw httpError('BAD_REQUEST', `chain ${chain} anchors bundle_hash only, not bundle_hash_secondary`);
      }
      if (await options.backlog.full(chain)) {
        // A hash already queued or anchored is no new work: it still gets its receipt.
        const live = await repo.latest(bundleHash, chain);
        if (live === undefined || live.item.state === 'failed') {
          throw protocolError(
            'BACKPRESSURE',
            app.protocolProfile,
            `chain ${chain} has ${options.backlog.max} or more requests waiting to be sent; retry later`,
            { headers: { 'retry-after': String(options.retryAfterSeconds) } },
          );
        }
      }
      const { item, created } = await repo.enqueue(chain, bundleHash, undefined, secondary);
      if (secondary !== undefined && item.bundle_hash_secondary !== secondary) {
        throw httpError(
          'CONFLICT',
          item.bundle_hash_secondary === null
            ? `${bundleHash} is already batched on ${chain} without a secondary hash`
            : `${bundleHash} is already anchored on ${chain} with another secondary hash`,
          { details: { bundle_hash_secondary: item.bundle_hash_secondary } },
        );
      }
      if (created) options.backlog.accepted(chain);
      if (options.mode === 'individual') {
        if (created) {
          await repo.closeBatch(chain, { max: 1, only: item.seq, build: batchTree });
          await worker.run(chain, false);
        }
        await waitForWrite(bundleHash, chain);
      } else if (created) {
        worker.noteEnqueued(chain);
      }
      const now = await current(bundleHash, chain);
      const receipt = now?.receipt ?? buildReceipt(adapter, item, undefined);
      const written =
        receipt['status'] === 'confirmed' ||
        (options.mode === 'individual' && (now?.batch?.state === 'sent' || receipt['status'] === 'failed'));
      return reply.code(written ? 200 : 202).send({ anchor_receipt: receipt });
    },
  );

  app.get(
    '/anchor/:bundle_hash',
    {
      schema: {
        summary: 'The latest anchor receipt of a bundle hash, with its status',
        tags: ['anchoring'],
        params: {
          type: 'object',
          required: ['bundle_hash'],
          properties: { bundle_hash: { type: 'string', pattern: BUNDLE_HASH_PATTERN } },
        },
        querystring: {
          type: 'object',
          // A chain name (P217): anything else was handed to the store, where PostgreSQL refuses a NUL (500).
          properties: { chain: { type: 'string', pattern: CHAIN_NAME_PATTERN } },
        },
        response: { 200: receiptResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { bundle_hash: bundleHash } = request.params as { bundle_hash: string };
      const { chain } = request.query as { chain?: string };
      const found = await current(bundleHash, chain);
      if (found === undefined) throw httpError('NOT_FOUND', `no anchor request for ${bundleHash}`);
      return { anchor_receipt: found.receipt };
    },
  );
}
