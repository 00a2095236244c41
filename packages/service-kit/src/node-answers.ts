// Requests Node's HTTP server used to answer itself before Fastify saw them (P256): `Expect: 100-continue` got
// `100 Continue` at once, so a client was told to send its body before any guard (operator token, rate limit, load
// shedding, 415) had looked at the request; any other `Expect` got a bare 417, and an HTTP/1.1 request without
// Host a bare 400, neither in the shared error shape, with a request id, the security headers, `no-store`, a log
// line or a count. Now every such request goes through Fastify's hooks like any other (RFC 9110 §10.1.1; RFC 9112
// §3.2). P170 does the same for the parser's refusals, P148 for the router's. A CONNECT request (RFC 9110 §9.3.6)
// went to a `connect` listener, and with none Node destroyed the socket: no answer, log line or count (P260).
import { type IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type HttpError, httpError } from './http-errors.ts';

/** Requests whose `Expect: 100-continue` is not yet answered: the 100 goes out when the body is about to be read. */
const awaitingContinue = new WeakSet<IncomingMessage>();
/** Requests whose `Expect` names something other than 100-continue (as Node's own test reads it). */
const unmetExpectation = new WeakSet<IncomingMessage>();

/**
 * `http` server option: Node's own Host check answers a bare 400; `nodeAnswerRefusal` answers it instead.
 * Passed to Fastify with the other server settings.
 */
export const NODE_HOST_CHECK_OFF = { requireHostHeader: false } as const;

/**
 * Takes over Node's `checkContinue` and `checkExpectation` events: the request is handed to Fastify, and
 * `100 Continue` is written in `preParsing`, after every `onRequest` hook (the kit's, the rate limits' and the
 * routes' guards) let it through, right before the body is read. A request refused earlier never gets it, and
 * Node then closes the connection after the answer (its rule for an expectation left unanswered).
 */
export function installNodeAnswers(app: FastifyInstance): void {
  const server = app.server as Server;
  server.on('checkContinue', (req, res) => {
    awaitingContinue.add(req);
    server.emit('request', req, res);
  });
  server.on('checkExpectation', (req, res) => {
    unmetExpectation.add(req);
    server.emit('request', req, res);
  });
  // No service tunnels: the request goes through the hooks like any other and gets the kit's 405, then the
  // connection is closed (Node has handed the socket over and reads no further request from it).
  server.on('connect', (req, socket) => {
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Parameters<ServerResponse['assignSocket']>[0]);
    res.once('finish', () => {
      res.detachSocket(socket as Parameters<ServerResponse['detachSocket']>[0]);
      socket.end();
    });
    server.emit('request', req, res);
  });
  // Callback style: it runs for every request; no promise per request (P113).
  app.addHook('preParsing', (request, reply, payload, done) => {
    if (request.headers.expect !== undefined && awaitingContinue.delete(request.raw))
      reply.raw.writeContinue();
    done(null, payload);
  });
}

/** What the kit's `onRequest` hook answers a request Node used to refuse itself; undefined for every other. */
export function nodeAnswerRefusal(request: FastifyRequest): HttpError | undefined {
  const { headers, raw } = request;
  // A tunnel request (`CONNECT host:port`) names no resource of this service: 405, and the empty Allow says that no
  // method is allowed on it (RFC 9110 §10.2.1). `CONNECT /path` names one (P273): it goes on to the not-found handler
  // like any method without a route, 405 with the path's methods in Allow (§15.5.6: a 405 MUST list them), or 404.
  // Either way the connection is closed after the answer (the `connect` listener above).
  if (raw.method === 'CONNECT' && !request.url.startsWith('/')) {
    return httpError('METHOD_NOT_ALLOWED', 'This service opens no tunnel: CONNECT is not allowed', {
      headers: { allow: '', connection: 'close' },
    });
  }
  if (headers.host === undefined && raw.httpVersionMajor === 1 && raw.httpVersionMinor === 1) {
    return httpError('BAD_REQUEST', 'An HTTP/1.1 request must carry a Host header');
  }
  if (headers.expect !== undefined && unmetExpectation.has(raw)) {
    return httpError('EXPECTATION_FAILED', 'The only expectation this service meets is 100-continue');
  }
  return undefined;
}
