// What the web console needs from the log: look-up of a bundle hash, and CORS on the public read routes
// so another service's page (the verify page) can check inclusion from the browser. Issue 17; D18.
import { tlogLeafInput, toHex } from '@proto/core';
import { httpError } from '@proto/service-kit';
import type { LogRepository } from '@proto/store';
import type { FastifyInstance } from 'fastify';
import type { InFlight } from './in-flight.ts';
import { notYetCosigned, type ProvableTrees, provableSize } from './provable-size.ts';
import { inclusionAnswer, type NodeCache } from './tree.ts';

/** Public, read-only routes: anyone may read them from any origin (no cookies, no credentials). */
const CROSS_ORIGIN_READS = [
  /^\/root(\/signed)?$/,
  /^\/checkpoint$/,
  /^\/proof\/\d+$/,
  /^\/tlog-proof\/\d+$/,
  /^\/consistency$/,
  /^\/entries$/,
  /^\/lookup(\/[^/]+)?$/,
];

/** One of the log's public read routes (`path` without its query). */
export function isPublicRead(path: string): boolean {
  return CROSS_ORIGIN_READS.some((pattern) => pattern.test(path));
}

export function allowCrossOriginReads(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return payload;
    const path = request.url.split('?', 1)[0] ?? '';
    if (isPublicRead(path)) {
      reply.header('access-control-allow-origin', '*');
    }
    return payload;
  });
}

const HEX32 = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;

export async function lookupRoute(
  app: FastifyInstance,
  options: {
    readonly repository: LogRepository;
    readonly inFlight: InFlight;
    readonly nodes: NodeCache;
    /** P460: the proof is in the published tree on a witnessed log. */
    readonly trees: ProvableTrees;
  },
): Promise<void> {
  app.get<{ Querystring: { bundle_hash: string } }>(
    '/lookup',
    {
      schema: {
        summary: 'Index of a bundle_hash in the log (404 when it is not there)',
        tags: ['log'],
        querystring: {
          type: 'object',
          required: ['bundle_hash'],
          properties: { bundle_hash: { type: 'string', description: 'sha256:<64 lowercase hex>' } },
        },
        response: {
          200: {
            type: 'object',
            required: ['log_index', 'bundle_hash', 'timestamp'],
            properties: {
              log_index: { type: 'integer' },
              bundle_hash: { type: 'string' },
              leaf_hash: HEX32,
              timestamp: { type: 'string' },
            },
          },
        },
      },
    },
    async (request) => {
      const leaf = tlogLeafInput(request.query.bundle_hash);
      if (!leaf.ok) throw httpError('BAD_REQUEST', 'bundle_hash must be sha256:<64 lowercase hex>');
      const entry = await options.inFlight.run(() => options.repository.findEntry(leaf.value));
      if (entry === undefined) throw httpError('NOT_FOUND', `${request.query.bundle_hash} is not in the log`);
      return { log_index: entry.index, bundle_hash: request.query.bundle_hash, timestamp: entry.timestamp };
    },
  );

  // Issue 18 item 3: the path form also carries the inclusion proof in the current tree, so a verifier
  // holding only a bundle gets everything it needs in one request.
  app.get<{ Params: { bundle_hash: string } }>(
    '/lookup/:bundle_hash',
    {
      schema: {
        summary:
          'Index and RFC 9162 inclusion proof of a bundle_hash in the current tree (with witnesses: the published one; 404 when absent)',
        tags: ['log'],
        params: {
          type: 'object',
          required: ['bundle_hash'],
          properties: { bundle_hash: { type: 'string', description: 'sha256:<64 lowercase hex>' } },
        },
        response: {
          200: {
            type: 'object',
            required: ['log_index', 'bundle_hash', 'timestamp', 'tree_size', 'leaf_hash', 'proof', 'root'],
            properties: {
              log_index: { type: 'integer' },
              bundle_hash: { type: 'string' },
              timestamp: { type: 'string' },
              tree_size: { type: 'integer' },
              leaf_hash: HEX32,
              proof: { type: 'array', items: HEX32 },
              root: HEX32,
            },
          },
        },
      },
    },
    async (request) => {
      const leaf = tlogLeafInput(request.params.bundle_hash);
      if (!leaf.ok) throw httpError('BAD_REQUEST', 'bundle_hash must be sha256:<64 lowercase hex>');
      return options.inFlight.run(async () => {
        const entry = await options.repository.findEntry(leaf.value);
        if (entry === undefined)
          throw httpError('NOT_FOUND', `${request.params.bundle_hash} is not in the log`);
        // The head is read after the entry, so the entry is always inside the head's tree. With witnesses the
        // proof is in the published tree (P460): an entry past it is not covered yet.
        const head = await options.repository.head();
        const treeSize = provableSize(options.trees, head.size);
        if (entry.index >= treeSize)
          throw notYetCosigned(options.trees, `log_index ${entry.index}`, head.size);
        const answer = await inclusionAnswer(options.nodes, entry.index, treeSize);
        return {
          log_index: entry.index,
          bundle_hash: request.params.bundle_hash,
          timestamp: entry.timestamp,
          tree_size: treeSize,
          leaf_hash: toHex(answer.leafHash),
          proof: answer.proof.map(toHex),
          root: toHex(answer.root),
        };
      });
    },
  );
}
