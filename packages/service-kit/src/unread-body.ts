// Refusals sent before the request body is read close the connection. docs/architecture.md §3 (runtime).
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** True when the request announced a body that nobody has read to its end. */
export function bodyLeftUnread(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  const announced =
    request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  return announced && !request.raw.readableEnded;
}

/**
 * A reply sent before the body was consumed (rate limit, load shedding, an auth guard, 415 before
 * parsing) carries `Connection: close`. Kept alive, the socket would still carry the rest of the
 * client's upload (up to the body limit): the client holds it in its pool and the server's shutdown,
 * which only closes idle connections, waits for it.
 */
export function installCloseOnUnreadBody(app: FastifyInstance): void {
  // Callback style: this runs for every response, POST /verify's included; no promise per reply.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (bodyLeftUnread(request)) reply.header('connection', 'close');
    done(null, payload);
  });
}
