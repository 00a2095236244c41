// The published documents: the signed revocation list (ETag, Last-Modified, Cache-Control, 304) and the
// attestation issuer keys. SPEC.md "Revocation service", "Jurisdiction attestation"; DECISIONS D20, D21.
import { createHash } from 'node:crypto';
import { answerNotModified, CACHE_REVALIDATE, httpError } from '@proto/service-kit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TrustedKey } from '../core.ts';
import type { ListPublisher } from '../publisher.ts';
import { listLastModified, unmodifiedSince } from './last-modified.ts';

export interface WellKnownOptions {
  readonly publisher: ListPublisher;
  readonly maxAgeSeconds: number;
  readonly clock: () => Date;
  readonly attestationKeys: () => { issuer: string; jurisdiction: string; keys: readonly TrustedKey[] };
  readonly onListResponse?: (status: number) => void;
}

/** Strong validator: list number plus a digest of the exact bytes served. */
export function listEtag(listNumber: number, json: string): string {
  return `"${listNumber}-${createHash('sha256').update(json).digest('hex').slice(0, 32)}"`;
}

/** RFC 9110 §13.1.2: `*` or a list of entity tags, compared weakly (W/ ignored). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => bare(tag) === bare(etag));
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
      const etag = listEtag(latest.list_number, latest.list_json);
      const now = options.clock().getTime();
      const issuedAt = Date.parse(latest.issued_at);
      const lastModified = listLastModified(issuedAt, now);
      const remaining = Math.floor((Date.parse(latest.next_update) - now) / 1000);
      // D20: max-age never reaches beyond next_update, so no cache can serve the list once it is stale.
      const maxAge = Math.max(0, Math.min(options.maxAgeSeconds, remaining));
      reply
        .header('etag', etag)
        .header('last-modified', lastModified.toUTCString())
        .header('cache-control', `public, max-age=${maxAge}`);
      const ifNoneMatch = request.headers['if-none-match'];
      const ifModifiedSince = request.headers['if-modified-since'];
      const notModified =
        ifNoneMatch !== undefined
          ? etagMatches(ifNoneMatch, etag)
          : ifModifiedSince !== undefined && unmodifiedSince(issuedAt, ifModifiedSince);
      if (notModified) {
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
