// The one error handler and the not-found handler: every 4xx/5xx becomes the shared error body.
// docs/architecture.md §6 (error shape, never a stack), SPEC.md Errors/Limits (413 over 1 MB), DECISIONS D13.
import type { ProtocolProfile } from '@proto/core';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  bodyTooLarge,
  HTTP_ERROR_STATUS,
  HttpError,
  type HttpErrorName,
  httpError,
  protocolError,
  unsupportedMediaType,
} from './http-errors.ts';

const NAME_BY_STATUS: ReadonlyMap<number, HttpErrorName> = new Map(
  (Object.entries(HTTP_ERROR_STATUS) as [HttpErrorName, number][])
    .filter(([name]) => name !== 'INVALID_ID')
    .map(([name, status]) => [status, name]),
);

interface ValidationIssue {
  readonly instancePath?: string;
  readonly message?: string;
  readonly keyword?: string;
  readonly params?: unknown;
}

/** Longest member name an answer repeats: the name is the caller's text, and may be as long as the body. */
const MAX_NAMED_MEMBER = 64;

/**
 * P270: the message of a member no schema names ("must NOT have additional properties" says not which). The name is
 * sent back JSON-quoted and cut short, so the answer stays small and shows exactly what was refused.
 */
function unknownMemberMessage(where: string, issue: ValidationIssue | undefined): string | undefined {
  if (issue?.keyword !== 'additionalProperties') return undefined;
  const member = (issue.params as { additionalProperty?: unknown } | undefined)?.additionalProperty;
  if (typeof member !== 'string') return undefined;
  const named = member.length > MAX_NAMED_MEMBER ? `${member.slice(0, MAX_NAMED_MEMBER)}…` : member;
  return `${where}${issue.instancePath ?? ''} has a member this service does not read: ${JSON.stringify(named)}`;
}

/** One issue's detail text for a member no schema names (P338), undefined for any other issue. */
function unknownMemberDetail(issue: ValidationIssue): string | undefined {
  if (issue.keyword !== 'additionalProperties') return undefined;
  const member = (issue.params as { additionalProperty?: unknown } | undefined)?.additionalProperty;
  if (typeof member !== 'string') return undefined;
  const named = member.length > MAX_NAMED_MEMBER ? `${member.slice(0, MAX_NAMED_MEMBER)}…` : member;
  return `${issue.message ?? 'must NOT have additional properties'}: ${JSON.stringify(named)}`;
}

/** Maps anything thrown inside a request to the HttpError the caller sees. */
export function toHttpError(error: unknown, profile: ProtocolProfile, bodyLimit: number): HttpError {
  if (error instanceof HttpError)
    return error.statusCode === 415
      ? unsupportedMediaType(profile, error.message, { headers: error.headers })
      : error;
  const e = (error ?? {}) as Partial<FastifyError> & { validation?: ValidationIssue[] };
  const status = typeof e.statusCode === 'number' ? e.statusCode : 500;

  if (Array.isArray(e.validation)) {
    // P338: Ajv's text for an unknown member ("must NOT have additional properties") says not which; the details
    // name it as the message does, so a client reading only `details` sees what to remove.
    const details = e.validation.map((v) => ({
      path: v.instancePath ?? '',
      message: unknownMemberDetail(v) ?? v.message ?? 'is invalid',
      keyword: v.keyword,
    }));
    const where = e.validationContext ?? 'body';
    // Ids in paths are checked by a pattern (SPEC.md Limits, D14): a bad one is INVALID_ID.
    if (where === 'params')
      return httpError('INVALID_ID', `Invalid identifier in path: ${e.message}`, { details });
    const problem = unknownMemberMessage(where, e.validation[0]) ?? e.message;
    return protocolError('BUNDLE_SCHEMA_INVALID', profile, `Request ${where} is invalid: ${problem}`, {
      statusCode: 400,
      details,
    });
  }
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return protocolError('BUNDLE_SCHEMA_INVALID', profile, 'Request body is not valid JSON', {
        statusCode: 400,
      });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return bodyTooLarge(bodyLimit);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return unsupportedMediaType(
        profile,
        'Unsupported Content-Type (use application/json or application/cbor)',
      );
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return httpError('BAD_REQUEST', 'Request body size does not match Content-Length');
    default:
      break;
  }
  if (status === 413) return bodyTooLarge(bodyLimit);
  if (status === 429) return protocolError('RATE_LIMIT_EXCEEDED', profile);
  if (status === 415) return unsupportedMediaType(profile, e.message || 'Unsupported Content-Type');
  if (status >= 400 && status < 500) {
    // Client errors raised by Fastify and its plugins carry safe, fixed messages.
    const name = NAME_BY_STATUS.get(status) ?? 'BAD_REQUEST';
    return new HttpError({ statusCode: status, code: name, message: e.message || name, retryable: false });
  }
  if (status === 503)
    return protocolError('BACKPRESSURE', profile, undefined, { headers: { 'retry-after': '1' } });
  // Anything else is a bug or an outage: the caller gets a fixed message, the log gets the details.
  return protocolError('INTERNAL_ERROR', profile, 'Internal error', { statusCode: 500 });
}

/**
 * Sends an HttpError with its headers and body. The body is the shared error shape whatever the route's own schema
 * for that status says: /verify's 400 schema is its verdict shape, and a kit refusal there (no Host, a framing
 * refused before the handler: P585) failed that schema and went out as Fastify's 500 FST_ERR_FAILED_ERROR_SERIALIZATION.
 * JSON.stringify writes the same bytes the ErrorResponse schema does (a custom serializer leaves the type to us); CBOR's
 * preSerialization hook still replaces both.
 */
export function sendHttpError(reply: FastifyReply, error: HttpError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply
    .code(error.statusCode)
    .type('application/json; charset=utf-8')
    .serializer(JSON.stringify)
    .send(error.toBody());
}

interface RouteEntry {
  readonly methods: readonly string[];
  readonly pattern: RegExp;
}

function routePattern(url: string): RegExp {
  const source = url
    .split('/')
    .map((segment) => {
      if (segment === '*') return '.*';
      if (segment.startsWith(':')) return '[^/]+';
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return new RegExp(`^${source}/?$`);
}

/**
 * Installs the error handler and the not-found handler (with 405 Method Not Allowed for a path that
 * exists under another method). Must run before routes are registered so that it sees them all.
 */
export function installErrorHandling(
  app: FastifyInstance,
  profile: ProtocolProfile,
  bodyLimit: number,
  onError?: (error: HttpError) => void,
): void {
  const send = (reply: FastifyReply, error: HttpError) => {
    onError?.(error);
    return sendHttpError(reply, error);
  };
  const routes: RouteEntry[] = [];
  app.addHook('onRoute', (route) => {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).map(String);
    routes.push({ methods, pattern: routePattern(route.url) });
  });

  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const httpErr = toHttpError(error, profile, bodyLimit);
    if (httpErr.statusCode >= 500 && !(error instanceof HttpError)) {
      request.log.error({ err: error }, 'request failed');
    } else if (httpErr.statusCode >= 500) {
      request.log.warn({ code: httpErr.code, statusCode: httpErr.statusCode }, httpErr.message);
    } else {
      request.log.info({ code: httpErr.code, statusCode: httpErr.statusCode }, httpErr.message);
    }
    return send(reply, httpErr);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = (request.url.split('?')[0] ?? '/').slice(0, 256);
    const allowed = new Set<string>();
    for (const route of routes) {
      if (route.pattern.test(path)) for (const m of route.methods) allowed.add(m);
    }
    if (allowed.size > 0 && !allowed.has(request.method)) {
      const allow = [...allowed].sort().join(', ');
      return send(
        reply,
        httpError('METHOD_NOT_ALLOWED', `Method ${request.method} is not allowed on ${path}`, {
          headers: { allow },
          details: { allowed: [...allowed].sort() },
        }),
      );
    }
    return send(reply, httpError('NOT_FOUND', `No route for ${request.method} ${path}`));
  });
}
