// Operator API of revocations: add (permanent, idempotent) and look up; each addition re-signs the list.
// SPEC.md "Revocation service"; DECISIONS D20 (reason_hash only, list_number bump), D22 (bearer token).
import { errorResponses, httpError, protocolError } from '@proto/service-kit';
import type { RevocationEntryRecord, RevocationRepository } from '@proto/store';
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { dateTimeInstant, isRfc3339Instant, reasonHash } from '../core.ts';
import { assertAgentId, ID_PATTERN_SOURCE } from '../ids.ts';
import type { ListPublisher } from '../publisher.ts';

export interface RevocationRoutesOptions {
  readonly publisher: ListPublisher;
  readonly repository: RevocationRepository;
  readonly jurisdiction: string;
  readonly guard: onRequestHookHandler;
  readonly clock: () => Date;
  readonly onRevoked?: () => void;
}

/** A revoked_at further ahead than this is refused: a revocation is a statement about the past. */
const MAX_FUTURE_MS = 5 * 60 * 1000;

const entrySchema = {
  type: 'object',
  required: ['agent_id', 'revoked_at', 'reason_hash', 'list_number', 'recorded_at'],
  properties: {
    agent_id: { type: 'string' },
    revoked_at: { type: 'string' },
    reason_hash: { type: 'string' },
    list_number: { type: 'integer', description: 'The first list that carries the entry' },
    recorded_at: { type: 'string' },
    created: { type: 'boolean' },
  },
} as const;

function view(entry: RevocationEntryRecord) {
  return {
    agent_id: entry.agent_id,
    revoked_at: entry.revoked_at,
    reason_hash: entry.reason_hash,
    list_number: entry.first_list_number,
    recorded_at: entry.recorded_at,
  };
}

interface RevokeBody {
  agent_id: string;
  reason: string;
  revoked_at?: string;
}

export async function revocationRoutes(
  app: FastifyInstance,
  options: RevocationRoutesOptions,
): Promise<void> {
  app.post<{ Body: RevokeBody }>(
    '/revocations',
    {
      onRequest: options.guard,
      schema: {
        summary: 'Revoke an agent (permanent); the list is re-signed with the next list_number',
        tags: ['revocation'],
        body: {
          type: 'object',
          required: ['agent_id', 'reason'],
          additionalProperties: false,
          properties: {
            agent_id: { type: 'string', description: `Matches ${ID_PATTERN_SOURCE}, at least 6 characters` },
            reason: {
              type: 'string',
              minLength: 1,
              maxLength: 4096,
              description: 'Published only as reason_hash = sha256: + SHA-256(UTF-8 text); never stored',
            },
            revoked_at: { type: 'string', format: 'date-time', description: 'Default: now' },
          },
        },
        response: { 200: entrySchema, 201: entrySchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const body = request.body;
      assertAgentId(body.agent_id);
      const now = options.clock();
      let revokedAt = now.toISOString();
      if (body.revoked_at !== undefined) {
        // A leap second counts from the millisecond before it: a revocation is never later than written (P178).
        // Core's date-time reader, never Date.parse's guesses; and an instant the published list can write as a
        // date-time (a four-digit year in UTC: `0000-01-01T00:00:00+01:00` is in year -1), else the list's own
        // schema refuses it when signing (P244).
        const time = dateTimeInstant(body.revoked_at, 'earliest');
        if (!isRfc3339Instant(time)) {
          throw protocolError(
            'BUNDLE_SCHEMA_INVALID',
            app.protocolProfile,
            'revoked_at must be an RFC 3339 date-time naming an instant from 0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z',
            { statusCode: 400 },
          );
        }
        if (time - now.getTime() > MAX_FUTURE_MS)
          throw httpError('BAD_REQUEST', 'revoked_at lies in the future');
        revokedAt = new Date(time).toISOString();
      }
      const result = await options.publisher.revoke({
        agent_id: body.agent_id,
        revoked_at: revokedAt,
        reason_hash: reasonHash(body.reason),
      });
      if (result.status === 'created') {
        options.onRevoked?.();
        request.log.info({ agent_id: body.agent_id, list_number: result.list.list_number }, 'agent revoked');
        return reply.code(201).send({ ...view(result.entry), created: true });
      }
      // Idempotent: the first revocation stands (its time and reason hash are never rewritten).
      return reply.code(200).send({ ...view(result.entry), created: false });
    },
  );

  app.get<{ Params: { agent_id: string } }>(
    '/revocations/:agent_id',
    {
      onRequest: options.guard,
      schema: {
        summary: 'The revocation entry of an agent (404 when it is not revoked)',
        tags: ['revocation'],
        params: {
          type: 'object',
          required: ['agent_id'],
          properties: { agent_id: { type: 'string', pattern: ID_PATTERN_SOURCE } },
        },
        response: { 200: entrySchema, ...errorResponses },
      },
    },
    async (request) => {
      const entry = await options.repository.getEntry(options.jurisdiction, request.params.agent_id);
      if (entry === undefined) throw httpError('NOT_FOUND', `${request.params.agent_id} is not revoked`);
      return view(entry);
    },
  );
}
