// Content negotiation between JSON and CBOR: a strict `application/cbor` body parser and CBOR replies
// for callers that ask for them. PROTOCOL §8.2 (CBOR is transport only), SPEC.md Versioning 7.
import type { ProtocolProfile } from '@proto/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CborError, decodeCbor, encodeCbor } from './cbor.ts';
import { protocolError } from './http-errors.ts';

export const CBOR_CONTENT_TYPE = 'application/cbor';

function qualityOf(accept: string, type: string): number {
  let best = -1;
  for (const part of accept.split(',')) {
    const [media = '', ...params] = part.trim().toLowerCase().split(';');
    const specific = media.trim() === type;
    const wildcard = media.trim() === '*/*' || media.trim() === `${type.split('/')[0]}/*`;
    if (!specific && !wildcard) continue;
    let q = 1;
    for (const p of params) {
      const [k, v] = p.trim().split('=');
      if (k === 'q' && v !== undefined) q = Number(v);
    }
    if (Number.isNaN(q)) q = 0;
    // A specific match outranks a wildcard: record wildcards just below their q.
    const score = specific ? q + 0.0001 : q;
    if (score > best) best = score;
  }
  return best;
}

/** True when the Accept header prefers CBOR to JSON (JSON wins ties and is the default). */
export function prefersCbor(accept: string | undefined): boolean {
  if (!accept?.toLowerCase().includes(CBOR_CONTENT_TYPE)) return false;
  const cbor = qualityOf(accept, CBOR_CONTENT_TYPE);
  const json = qualityOf(accept, 'application/json');
  return cbor > 0 && cbor > json;
}

/** Parses an `application/cbor` body strictly into plain JSON values; 400 with E001 when it is not. */
export function parseCborBody(profile: ProtocolProfile) {
  return (
    _request: FastifyRequest,
    body: Buffer,
    done: (err: Error | null, body?: unknown) => void,
  ): void => {
    try {
      done(null, decodeCbor(body));
    } catch (error) {
      const reason = error instanceof CborError ? error.message : 'malformed CBOR';
      done(
        protocolError('BUNDLE_SCHEMA_INVALID', profile, `Request body is not valid CBOR: ${reason}`, {
          statusCode: 400,
        }),
      );
    }
  };
}

/**
 * Registers the CBOR body parser and, for requests whose Accept prefers CBOR, replies with CBOR
 * instead of JSON (objects only; text such as /metrics is left alone).
 */
export function installWireFormats(app: FastifyInstance, profile: ProtocolProfile): void {
  app.addContentTypeParser(CBOR_CONTENT_TYPE, { parseAs: 'buffer' }, parseCborBody(profile));
  app.addHook('preSerialization', async (request, reply, payload) => {
    const vary = reply.getHeader('vary');
    if (vary === undefined) reply.header('vary', 'Accept');
    else if (!String(vary).toLowerCase().includes('accept')) reply.header('vary', `${String(vary)}, Accept`);
    if (prefersCbor(request.headers.accept)) {
      reply.type(CBOR_CONTENT_TYPE);
      // Fastify sends whatever the serializer returns; its typing only admits strings.
      reply.serializer(encodeCbor as unknown as (payload: unknown) => string);
    }
    return payload;
  });
}
