// Answers to the requests Node's HTTP parser refuses before Fastify sees them: a request still arriving after
// REQUEST_TIMEOUT_MS (P159), a malformed request line or header, headers over Node's limit. Fastify's default
// handler wrote its own body shape with no request id, security headers or metric. Wired as Fastify's
// `clientErrorHandler`. P170; docs/architecture.md §6 (error shape); P148 does the same for the router's refusals.
import { randomUUID } from 'node:crypto';
import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { type HttpError, httpError } from './http-errors.ts';
import { genRequestId, REQUEST_ID_HEADER } from './logging.ts';
import type { SecurityHeaders } from './security-headers.ts';

export interface ClientErrorOptions {
  readonly securityHeaders: SecurityHeaders;
  /** Counts the answer (http_errors_total), as the error handler does for every other error. */
  readonly onError: (error: HttpError) => void;
  readonly log: () => FastifyBaseLogger | undefined;
}

/** The HttpError for a parser error: fixed messages, so no byte of what the client sent is sent back. */
export function clientErrorAnswer(error: { readonly code?: string }): HttpError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return httpError('REQUEST_TIMEOUT', 'The whole request did not arrive in time');
    case 'HPE_HEADER_OVERFLOW':
      return httpError('HEADERS_TOO_LARGE', 'The request headers exceed the size this service accepts');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return httpError('PAYLOAD_TOO_LARGE', 'The chunk extensions exceed the size this service accepts');
    default:
      return httpError('BAD_REQUEST', 'The request is not well-formed HTTP/1.1');
  }
}

/** The socket's in-flight response (Node's own field, read the way its default clientError handling reads it). */
function inFlight(socket: Socket): ServerResponse | undefined {
  return (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
}

function answerBytes(answer: HttpError, requestId: string, securityHeaders: SecurityHeaders): string {
  const body = JSON.stringify(answer.toBody());
  const headers: [string, string][] = [
    ['Content-Type', 'application/json; charset=utf-8'],
    ['Content-Length', String(Buffer.byteLength(body))],
    [REQUEST_ID_HEADER, requestId],
    ...securityHeaders.map(([name, value]) => [name, value] as [string, string]),
    ['Cache-Control', 'no-store'],
    ['Connection', 'close'],
    ...Object.entries(answer.headers),
  ];
  const lines = headers.map(([name, value]) => `${name}: ${value}\r\n`).join('');
  return `HTTP/1.1 ${answer.statusCode} ${STATUS_CODES[answer.statusCode] ?? ''}\r\n${lines}\r\n${body}`;
}

/**
 * Fastify's `clientErrorHandler`. Never throws: the socket may already be half-written or destroyed. A request
 * whose whole body had arrived keeps its answer (the error is in what was pipelined after it): the refusal
 * follows once that answer is sent. Otherwise the refusal takes the failed request's place, unless part of an
 * answer already went out, when the connection is only closed.
 */
export function clientErrorHandler(options: ClientErrorOptions): (error: Error, socket: Socket) => void {
  const refuse = (error: Error & { code?: string }, socket: Socket, pending?: ServerResponse): void => {
    try {
      if (socket.destroyed || !socket.writable || pending?.headersSent === true) {
        socket.destroy();
        return;
      }
      const answer = clientErrorAnswer(error);
      // The id the failed request was logged under when it got that far (its own X-Request-Id when plain, else
      // the UUID it was given then: genRequestId answers the same for the same request), else a fresh one.
      const requestId = pending === undefined ? randomUUID() : genRequestId(pending.req);
      options
        .log()
        ?.info(
          { reqId: requestId, code: answer.code, statusCode: answer.statusCode, parserError: error.code },
          answer.message,
        );
      options.onError(answer);
      socket.write(answerBytes(answer, requestId, options.securityHeaders));
      socket.destroy();
    } catch {
      socket.destroy();
    }
  };
  return (error: Error & { code?: string }, socket: Socket) => {
    try {
      // A reset connection has no one to answer (Node's and Fastify's own rule).
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      const pending = inFlight(socket);
      if (pending?.req.complete && !pending.writableFinished) {
        const after = () => refuse(error, socket);
        pending.once('finish', after);
        pending.once('close', () => socket.destroy());
        return;
      }
      refuse(error, socket, pending);
    } catch {
      socket.destroy();
    }
  };
}
