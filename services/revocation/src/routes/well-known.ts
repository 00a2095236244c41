// The published documents: the signed revocation list (ETag, Last-Modified, Cache-Control, 304) and the
// attestation issuer keys. SPEC.md "Revocation service", "Jurisdiction attestation"; DECISIONS D20, D21.
import {
  answerNotModified,
  CACHE_REVALIDATE,
  httpError,
  requestNotModified,
  strongEntityTag,
} from '@proto/service-kit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TrustedKey } from '../core.ts';
import type { ListPublisher } from '../publisher.ts';
import { listLastModified } from './last-modified.ts';

export interface WellKnownOptions {
  readonly publisher: ListPublisher;
  readonly maxAgeSeconds: number;
  readonly clock: () => Date;
  readonly attestationKeys: () => { issuer: string; jurisdiction: string; keys: readonly TrustedKey[] };
  readonly onListResponse?: (status: number) => void;
}

const ISO = { type: 'string', format: 'date-time' } as const;

export async function wellKnownRoutes(app: FastifyInstance, options: WellKnownOptions): Promise<void> {
  const profile = app.protocolProfile;

  app.get(
    profile.wellKnown.revocations,
    {
      schema: {
        summary: 'The signed jurisdictional revocation list (D20)',
        tags: ['revocation'],
        headers: {
          type: 'object',
          properties: { 'if-none-match': { type: 'string' }, 'if-modified-since': { type: 'string' } },
        },
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const latest = await options.publisher.latest();
      if (latest === undefined) {
        throw httpError('NOT_READY', 'No revocation list has been issued yet', {
          retryable: true,
          headers: { 'retry-after': '1' },
        });
      }
      // The kit's strong tag of the exact bytes served, as every other document of the stack (P212).
      const etag = strongEntityTag(latest.list_json);
      const now = options.clock().getTime();
      const issuedAt = Date.parse(latest.issued_at);
      const lastModified = listLastModified(issuedAt, now);
      const remaining = Math.floor((Date.parse(latest.next_update) - now) / 1000);
      // D20: max-age never reaches beyond next_update. must-revalidate (P212, RFC 9111 §5.2.2.2): once stale, a
      // cache asks before each use, and answers 504 rather than the stale list when it cannot (a cache may
      // otherwise serve stale content when cut off, §4.2.4), since a stale list may lack the revocation that
      // made it change.
      const maxAge = Math.max(0, Math.min(options.maxAgeSeconds, remaining));
      reply
        .header('etag', etag)
        .header('last-modified', lastModified.toUTCString())
        .header('cache-control', `public, max-age=${maxAge}, must-revalidate`);
      // If-None-Match first, If-Modified-Since only without it, at the list's full precision (P153, P212, P245).
      if (requestNotModified(request.headers, { etag, modifiedMs: issuedAt, nowMs: now })) {
        options.onListResponse?.(304);
        return reply.code(304).send();
      }
      options.onListResponse?.(200);
      return reply.type('application/json; charset=utf-8').send(latest.list_json);
    },
  );

  app.get(
    profile.wellKnown.attestationKeys,
    {
      // A strong ETag and 304: the document changes only with a restart, so revalidating costs headers (P195).
      onSend: answerNotModified,
      schema: {
        summary: 'Public keys of the attestation issuer, with ids and validity windows (D21)',
        tags: ['attestation'],
        response: {
          200: {
            type: 'object',
            required: ['issuer', 'jurisdiction', 'keys'],
            properties: {
              issuer: { type: 'string' },
              jurisdiction: { type: 'string' },
              keys: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['key_id', 'public_key_b64', 'valid_from', 'valid_until'],
                  properties: {
                    key_id: { type: 'string' },
                    public_key_b64: { type: 'string' },
                    valid_from: { anyOf: [ISO, { type: 'null' }] },
                    valid_until: { anyOf: [ISO, { type: 'null' }] },
                  },
                },
              },
            },
          },
        },
      },
    },
    async (_request, reply) => {
      // P195: asked again before each use. A key the operator retired (dropped from ATTESTATION_PREVIOUS_KEYS)
      // must leave the published document at the restart, not LIST_MAX_AGE_S later.
      reply.header('cache-control', CACHE_REVALIDATE);
      const doc = options.attestationKeys();
      return {
        issuer: doc.issuer,
        jurisdiction: doc.jurisdiction,
        keys: doc.keys.map((k) => ({
          key_id: k.key_id,
          public_key_b64: k.public_key_b64,
          valid_from: k.valid_from ?? null,
          valid_until: k.valid_until ?? null,
        })),
      };
    },
  );
}
