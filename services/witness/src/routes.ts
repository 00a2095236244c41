// The witness's HTTP interface: POST /add-checkpoint (c2sp.org/tlog-witness), GET /<origin hash>/checkpoint
// (the spec's monitoring retrieval) and GET /witness/key (the vkey operators configure). Issue 18 item 2.
import { createHash } from 'node:crypto';
import type { ProtocolProfile } from '@proto/core';
import { errorResponses, type HttpError, httpError, protocolError, rateLimitPerIp } from '@proto/service-kit';
import type { FastifyInstance } from 'fastify';
import type { AddCheckpointOutcome, RefusalReason, Witness } from './witness.ts';

/** The spec's media type of a 409 body: the size the witness last cosigned, in decimal. */
export const TLOG_SIZE_CONTENT_TYPE = 'text/x.tlog.size';
const TEXT = 'text/plain; charset=utf-8';

export interface WitnessRoutesOptions {
  readonly witness: Witness;
  readonly vkey: string;
  readonly profile: ProtocolProfile;
  readonly bodyLimit: number;
  readonly rateLimitPerMinute: number | undefined;
  readonly onCosigned: (origin: string) => void;
  readonly onRefused: (reason: RefusalReason, outcome: AddCheckpointOutcome) => void;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function refusal(
  outcome: Exclude<AddCheckpointOutcome, { status: 200 | 409 }>,
  profile: ProtocolProfile,
): HttpError {
  switch (outcome.status) {
    case 400:
      return protocolError('BUNDLE_SCHEMA_INVALID', profile, outcome.message, { statusCode: 400 });
    case 403:
      return protocolError(outcome.code, profile, outcome.message, {
        statusCode: 403,
      });
    case 404:
      return httpError('NOT_FOUND', 'unknown log origin');
    case 422:
      return protocolError('MERKLE_ROOT_MISMATCH', profile, outcome.message, { statusCode: 422 });
  }
}

export async function witnessRoutes(app: FastifyInstance, options: WitnessRoutesOptions): Promise<void> {
  const { witness, profile } = options;

  // The body is text whatever the client labels it (the spec names no media type): read bytes, then
  // insist on UTF-8 so a note cannot mean two things to two parsers.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: options.bodyLimit },
    (_request, bytes, done) => {
      try {
        done(null, strictUtf8.decode(bytes as Buffer));
      } catch {
        done(
          protocolError('BUNDLE_SCHEMA_INVALID', profile, 'add-checkpoint body must be UTF-8 text', {
            statusCode: 400,
          }),
        );
      }
    },
  );

  app.post<{ Body: string }>(
    '/add-checkpoint',
    {
      schema: {
        summary: 'Submit a checkpoint and a consistency proof; answers the cosignature line(s)',
        description:
          'c2sp.org/tlog-witness add-checkpoint. Body: `old <size>`, consistency proof lines (base64), an empty ' +
          'line, the signed checkpoint. 200: text/plain cosignature/v1 line(s). 409: text/x.tlog.size with the ' +
          'size last cosigned. 404 unknown origin, 403 no valid trusted log signature, 400 malformed or old size ' +
          'above the checkpoint size, 422 proof or root inconsistent with the cosigned tree.',
        tags: ['witness'],
        response: errorResponses,
      },
      ...(options.rateLimitPerMinute ? { config: rateLimitPerIp(options.rateLimitPerMinute) } : {}),
    },
    async (request, reply) => {
      const body = typeof request.body === 'string' ? request.body : '';
      const outcome = await witness.addCheckpoint(body);
      if (outcome.status === 200) {
        options.onCosigned(outcome.origin);
        return reply.code(200).type(TEXT).send(outcome.body);
      }
      options.onRefused(outcome.reason, outcome);
      if (outcome.status === 409)
        return reply.code(409).type(TLOG_SIZE_CONTENT_TYPE).send(`${outcome.knownSize}\n`);
      if (outcome.signedBy !== undefined) {
        // The spec lets a witness keep a validly signed but inconsistent checkpoint: it may prove a split view.
        request.log.warn(
          {
            origin: outcome.signedBy,
            reason: outcome.message,
            checkpoint: body.slice(body.indexOf('\n\n') + 2),
          },
          'refused a log-signed checkpoint inconsistent with the cosigned tree',
        );
      }
      throw refusal(outcome, profile);
    },
  );

  app.get(
    '/witness/key',
    {
      schema: {
        summary: "The witness's verifier key (vkey), as logs and verifiers configure it",
        tags: ['witness'],
        response: errorResponses,
      },
    },
    async (_request, reply) => reply.type(TEXT).send(`${options.vkey}\n`),
  );

  app.get<{ Params: { originHash: string } }>(
    '/:originHash/checkpoint',
    {
      schema: {
        summary: 'The latest checkpoint cosigned for a log, with the log signatures and the cosignature',
        description:
          'tlog-witness monitoring retrieval: the path segment is lower-case hex SHA-256 of the origin.',
        tags: ['witness'],
        params: {
          type: 'object',
          required: ['originHash'],
          properties: { originHash: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
        },
        response: errorResponses,
      },
    },
    async (request, reply) => {
      const log = witness.logs.find(
        (l) => createHash('sha256').update(l.origin).digest('hex') === request.params.originHash,
      );
      const note = log === undefined ? undefined : await witness.latest(log.origin);
      if (note === undefined) throw httpError('NOT_FOUND', 'no checkpoint cosigned for this log');
      return reply.type(TEXT).send(note);
    },
  );
}
