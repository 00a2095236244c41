// Request logging that costs one cheap line per request at info (method, URL, status, time), written
// when the response is done; "incoming request" only at debug. Issue 14 item 1 (overhead at info).
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

/**
 * Fastify's default writes two lines per request, each through the req/res serializers and the
 * redaction paths; a CPU profile of POST /verify under load showed them as the main thread's largest
 * cost (`writeString`). Errors keep Fastify's own line, with the error serializer.
 */
export class CheapRequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    // pino skips the object's serialisation when debug is off; building it is two property reads.
    request.log.debug({ method: request.method, url: request.url }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
    metadata?: Record<string, unknown>,
  ): void {
    if (error) {
      super.requestCompleted(error, request, reply, metadata);
      return;
    }
    request.log.info(
      {
        method: request.method,
        url: request.url,
        statusCode: reply.statusCode,
        responseTime: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request completed',
    );
  }
}
