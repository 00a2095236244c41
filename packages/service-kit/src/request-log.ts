// Request logging that costs one cheap line per request at info (method, URL, status, time), written
// when the response is done; "incoming request" only at debug. Issue 14 item 1 (overhead at info).
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

/**
 * The URL as logged: the path, and of the query string its parameter names only (P261). A value (`?token=…`,
 * `?access_token=…`) may be a credential a client or a tool put there; a part without `=` may be one whole.
 */
export function loggedUrl(url: string): string {
  const mark = url.indexOf('?');
  if (mark === -1) return url;
  const parts = url.slice(mark + 1).split('&');
  for (let i = 0; i < parts.length; i += 1) {
    const part = parts[i]!;
    const eq = part.indexOf('=');
    parts[i] = part === '' ? part : eq === -1 ? '…' : `${part.slice(0, eq)}=…`;
  }
  return `${url.slice(0, mark)}?${parts.join('&')}`;
}

/**
 * Fastify's default writes two lines per request, each through the req/res serializers and the
 * redaction paths; a CPU profile of POST /verify under load showed them as the main thread's largest
 * cost (`writeString`). The service turns Fastify's request logging off (a `LogController` with
 * `disableRequestLogging`, service.ts) and logs from hooks instead; errors are logged by the kit's error
 * handler. (A refusal of an unread upload closes its connection, P84: without that, the service's
 * shutdown waited for the client's keep-alive socket, whichever way request logging was turned off.)
 */
/** `lines`: the unredacted logger of the request line (logging.ts `requestLineLogger`); none: no line. */
export function installRequestLog(app: FastifyInstance, lines?: Logger): void {
  // Callback hooks: they run for every request; an async hook costs a promise each time (P113).
  app.addHook('onRequest', (request, _reply, done) => {
    // pino skips the object's serialisation when debug is off; building it is two property reads and, for a URL
    // without a query (every route's but the log's reads), one indexOf.
    request.log.debug({ method: request.method, url: loggedUrl(request.url) }, 'incoming request');
    done();
  });
  if (lines === undefined) return;
  app.addHook('onResponse', (request, reply, done) => {
    lines.info(
      {
        reqId: request.id,
        method: request.method,
        url: loggedUrl(request.url),
        statusCode: reply.statusCode,
        responseTime: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request completed',
    );
    done();
  });
}
