// What the web console needs from the log: look-up of a bundle hash, and CORS on the public read routes
// so another service's page (the verify page) can check inclusion from the browser. Issue 17; D18.
import { tlogLeafInput } from '@proto/core';
import { httpError } from '@proto/service-kit';
import type { LogRepository } from '@proto/store';
import type { FastifyInstance } from 'fastify';
import type { InFlight } from './in-flight.ts';

/** Public, read-only routes: anyone may read them from any origin (no cookies, no credentials). */
const CROSS_ORIGIN_READS = [
  /^\/root(\/signed)?$/,
  /^\/checkpoint$/,
  /^\/proof\/\d+$/,
  /^\/tlog-proof\/\d+$/,
  /^\/consistency$/,
  /^\/entries$/,
  /^\/lookup$/,
];

export function allowCrossOriginReads(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return payload;
    const path = request.url.split('?', 1)[0] ?? '';
    if (CROSS_ORIGIN_READS.some((pattern) => pattern.test(path))) {
      reply.header('access-control-allow-origin', '*');
    }
    return payload;
  });
}

const HEX32 = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;

export async function lookupRoute(
  app: FastifyInstance,
  options: { readonly repository: LogRepository; readonly inFlight: InFlight },
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
}
