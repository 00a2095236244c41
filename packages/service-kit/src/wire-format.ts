// Content negotiation between JSON and CBOR: strict `application/json` and `application/cbor` body
// parsers and CBOR replies for callers that ask for them. PROTOCOL §8.2, SPEC.md Versioning 7, P2.
import type { ProtocolProfile } from '@proto/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type BodyRead, readCborBody, readJsonBody } from './body-readers.ts';
import { encodeCbor } from './cbor.ts';
import { protocolError } from './http-errors.ts';

export const CBOR_CONTENT_TYPE = 'application/cbor';

/** The q-value the Accept header gives `type` (a specific match just above a wildcard); -1 when none matches. */
export function acceptQuality(accept: string, type: string): number {
  // RFC 9110 §12.5.1: the most specific range that matches decides (`*/*;q=1, application/cbor;q=0` refuses CBOR),
  // and q=0 means "not acceptable" (P233). Among equal q, a type named outranks a wildcard: a score just above q.
  const major = type.split('/')[0];
  let rank = -1;
  let quality = -1;
  for (const part of accept.split(',')) {
    const [media = '', ...params] = part.trim().toLowerCase().split(';');
    const range = media.trim();
    const specificity = range === type ? 2 : range === `${major}/*` ? 1 : range === '*/*' ? 0 : -1;
    if (specificity < 0) continue;
    let q = 1;
    for (const p of params) {
      const [k, v] = p.trim().split('=');
      if (k === 'q' && v !== undefined) q = Number(v);
    }
    if (!(q >= 0 && q <= 1)) q = 0;
    if (specificity > rank || (specificity === rank && q > quality)) {
      rank = specificity;
      quality = q;
    }
  }
  if (rank < 0) return -1;
  return quality === 0 ? 0 : quality + rank * 0.0001;
}

/** True when the Accept header prefers CBOR to JSON (JSON wins ties and is the default). */
export function prefersCbor(accept: string | undefined): boolean {
  if (!accept?.toLowerCase().includes(CBOR_CONTENT_TYPE)) return false;
  const cbor = acceptQuality(accept, CBOR_CONTENT_TYPE);
  const json = acceptQuality(accept, 'application/json');
  return cbor > 0 && cbor > json;
}

/** A content-type parser over one of the strict readers (body-readers.ts): its refusal is a 400 with E001. */
function bodyParser(profile: ProtocolProfile, read: (bytes: Buffer) => BodyRead) {
  return (
    _request: FastifyRequest,
    bytes: Buffer,
    done: (err: Error | null, body?: unknown) => void,
  ): void => {
    const body = read(bytes);
    if (body.ok) done(null, body.value);
    else done(protocolError('BUNDLE_SCHEMA_INVALID', profile, body.message, { statusCode: 400 }));
  };
}

/** Parses an `application/cbor` body strictly into plain JSON values; 400 with E001 when it is not. */
export const parseCborBody = (profile: ProtocolProfile) => bodyParser(profile, readCborBody);

/**
 * Parses an `application/json` body strictly (P2, P316): see readJsonBody. Whichever route a body is sent to, what
 * has no single canonical reading never reaches a handler.
 */
const parseJsonBody = (profile: ProtocolProfile) => bodyParser(profile, readJsonBody);

/**
 * Registers the strict JSON and CBOR body parsers and, for requests whose Accept prefers CBOR, replies with CBOR
 * instead of JSON (objects only; text such as /metrics is left alone).
 */
/** Adds `Accept` to the reply's `Vary` (the answer's format depends on it), keeping what is already there. */
export function varyOnAccept(reply: FastifyReply): void {
  const vary = reply.getHeader('vary');
  if (vary === undefined) reply.header('vary', 'Accept');
  else if (!String(vary).toLowerCase().includes('accept')) reply.header('vary', `${String(vary)}, Accept`);
}

export function installWireFormats(app: FastifyInstance, profile: ProtocolProfile): void {
  app.addContentTypeParser(CBOR_CONTENT_TYPE, { parseAs: 'buffer' }, parseCborBody(profile));
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parseJsonBody(profile));
  // Callback style: it runs for every object answer; no promise per reply (P113).
  app.addHook('preSerialization', (request, reply, payload, done) => {
    varyOnAccept(reply);
    if (prefersCbor(request.headers.accept)) {
      reply.type(CBOR_CONTENT_TYPE);
      // Fastify sends whatever the serializer returns; its typing only admits strings.
      reply.serializer(encodeCbor as unknown as (payload: unknown) => string);
    }
    done(null, payload);
  });
}
