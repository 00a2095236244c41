// Answers to the URLs Fastify's router refuses before any route, hook or error handler runs (a malformed
// percent-escape, a path parameter over the router's limit): Fastify's own answer had another
// error shape, no request id, none of the security headers (nor D17's /v2 headers), no error metric, and
// echoed the caller's URL. Wired as Fastify's `frameworkErrors`. P148; docs/architecture.md §6 (error shape).
import type { ProtocolProfile } from '@proto/core';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { sendHttpError, toHttpError } from './error-handler.ts';
import { type HttpError, httpError } from './http-errors.ts';
import { REQUEST_ID_HEADER } from './logging.ts';
import { type SecurityHeaders, writeSecurityHeaders } from './security-headers.ts';

/**
 * Longest path parameter the router accepts (Fastify's default is 100). Ids may be 256 characters (SPEC.md
 * Limits), three times that when %-escaped; a longer one is refused here (P152).
 */
export const MAX_PATH_PARAM_LENGTH = 1024;

export interface RouterRefusalOptions {
  readonly profile: ProtocolProfile;
  readonly bodyLimit: number;
  readonly securityHeaders: SecurityHeaders;
  /** Counts the answer (http_errors_total), as the error handler does for every other error. */
  readonly onError: (error: HttpError) => void;
}

/** The HttpError for a router refusal: fixed messages, so no byte of the caller's URL is sent back. */
export function routerRefusal(error: FastifyError, profile: ProtocolProfile, bodyLimit: number): HttpError {
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return httpError('BAD_REQUEST', 'The request URL is malformed (an invalid percent-escape)');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      // Every path parameter of these services is an identifier: one longer than MAX_PATH_PARAM_LENGTH is
      // no valid one, %-escaped or not.
      return httpError('INVALID_ID', 'An identifier in the path is longer than this service accepts');
    default:
      return toHttpError(error, profile, bodyLimit);
  }
}

/** Fastify's `frameworkErrors` handler: the router's refusals answered like any other error. */
export function routerRefusalHandler(
  options: RouterRefusalOptions,
): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  return (error, request, reply) => {
    const refusal = routerRefusal(error, options.profile, options.bodyLimit);
    // None of the kit's hooks runs for these requests: what its onRequest and /v2 onSend hooks would
    // have written is written here. `no-store`: an answer to an unusable URL is never worth caching.
    reply.header(REQUEST_ID_HEADER, request.id);
    writeSecurityHeaders(reply.raw, options.securityHeaders);
    reply.header('cache-control', 'no-store');
    request.log.info({ code: refusal.code, statusCode: refusal.statusCode }, refusal.message);
    options.onError(refusal);
    sendHttpError(reply, refusal);
  };
}
