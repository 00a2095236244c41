// Content negotiation between JSON and CBOR: strict `application/json` and `application/cbor` body
// parsers and CBOR replies for callers that ask for them. PROTOCOL §8.2, SPEC.md Versioning 7, P2.
import {
  checkParsedJson,
  type ProtocolProfile,
  prototypeMemberMessage,
  prototypeMemberPath,
} from '@proto/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CborError, decodeCbor, encodeCbor } from './cbor.ts';
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

/** Parses an `application/cbor` body strictly into plain JSON values; 400 with E001 when it is not. */
export function parseCborBody(profile: ProtocolProfile) {
  const refuse = (message: string) =>
    protocolError('BUNDLE_SCHEMA_INVALID', profile, message, { statusCode: 400 });
  return (
    _request: FastifyRequest,
    body: Buffer,
    done: (err: Error | null, body?: unknown) => void,
  ): void => {
    try {
      const value = decodeCbor(body);
      // The same refusal as a JSON body's: the wire must not decide what reaches a handler.
      const refused = prototypeRefusal(value);
      if (refused !== undefined) done(refuse(refused));
      else done(null, value);
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
 * The refusal of a member that reaches an object's prototype (`__proto__`, `constructor.prototype`): core's one rule,
 * which /verify, /verify/batch and the CLI apply too (P336, P381), so every reader names the same member the same way.
 */
function prototypeRefusal(value: unknown): string | undefined {
  const at = prototypeMemberPath(value);
  return at === undefined ? undefined : `Request body is invalid: ${prototypeMemberMessage(at)}`;
}

/**
 * UTF-8 that refuses what is not UTF-8 (P316). Fastify's `parseAs: 'string'` decoded leniently, each such byte
 * becoming U+FFFD, so a record signed over text holding U+FFFD was stored as verified from bytes that do not hold
 * it, where /verify (P220), the CLI (P232) and the console refuse them. One leading byte-order mark is dropped, as
 * /verify, the CLI and the console drop it (P382; RFC 8259 §8.1 lets a parser ignore it): the same bytes are one
 * JSON text to every reader. A second mark is no JSON whitespace and fails JSON.parse.
 */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses an `application/json` body strictly (P2): bytes that are not UTF-8 (P316) and text with no single
 * canonical reading (a member name twice, a number with no finite value, a lone surrogate) never reach a handler,
 * whichever route they are sent to; prototype member names are refused as Fastify's own parser refuses them.
 */
function parseJsonBody(profile: ProtocolProfile) {
  const refuse = (message: string) =>
    protocolError('BUNDLE_SCHEMA_INVALID', profile, message, { statusCode: 400 });
  return (
    _request: FastifyRequest,
    bytes: Buffer,
    done: (err: Error | null, body?: unknown) => void,
  ): void => {
    let body: string;
    try {
      body = strictUtf8.decode(bytes);
    } catch {
      done(refuse('Request body is not valid UTF-8'));
      return;
    }
    const [error, value] = readStrictJson(body, refuse);
    if (error === null) done(null, value);
    else done(error);
  };
}

/** `[error]` or `[null, value]`: the arguments the content-type parser hands to `done`. */
function readStrictJson(body: string, refuse: (message: string) => Error): [Error] | [null, unknown] {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return [refuse('Request body is not valid JSON')];
  }
  const checked = checkParsedJson(body, value);
  if (!checked.ok) return [refuse(`Request body has no canonical form: ${checked.error.message}`)];
  // Walked every time, as the CBOR reader walks (P531): a search of the text for the names costs more.
  const refused = prototypeRefusal(value);
  if (refused !== undefined) return [refuse(refused)];
  return [null, value];
}

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
