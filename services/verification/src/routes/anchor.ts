// POST /anchor: forwarded to the anchor service (ANCHOR_SERVICE_URL) with the caller's Authorization;
// 501 when none is configured. SPEC.md "POST /anchor (optional)", DECISIONS D19, D22.
import { errorResponses, HttpError, httpError } from '@proto/service-kit';
import type { FastifyInstance } from 'fastify';

const FORWARD_TIMEOUT_MS = 15_000;

export async function anchorRoute(
  app: FastifyInstance,
  options: { readonly anchorServiceUrl?: string },
): Promise<void> {
  const target = options.anchorServiceUrl
    ? new URL('anchor', options.anchorServiceUrl.replace(/\/?$/, '/'))
    : undefined;
  app.post(
    '/anchor',
    {
      schema: {
        summary: 'Anchor a bundle hash (forwarded to the anchor service)',
        description:
          'Needs ANCHOR_SERVICE_URL; the Authorization header is passed through (the anchor service requires an operator token).',
        tags: ['anchoring'],
        body: {
          type: 'object',
          required: ['bundle_hash'],
          properties: {
            bundle_hash: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' },
            chain: { type: 'string' },
          },
        },
        response: { ...errorResponses },
      },
    },
    async (request, reply) => {
      if (!target) {
        throw httpError(
          'NOT_IMPLEMENTED',
          'Anchoring is not configured on this verification service (set ANCHOR_SERVICE_URL to forward to an anchor service)',
        );
      }
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        accept: 'application/json',
      };
      if (typeof request.headers.authorization === 'string')
        headers['authorization'] = request.headers.authorization;
      headers['x-request-id'] = request.id;
      let upstream: Response;
      try {
        upstream = await fetch(target, {
          method: 'POST',
          headers,
          body: JSON.stringify(request.body),
          signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
        });
      } catch (error) {
        const timedOut = (error as Error).name === 'TimeoutError';
        request.log.warn({ err: error, target: target.origin }, 'anchor service unreachable');
        throw timedOut
          ? httpError('GATEWAY_TIMEOUT', 'The anchor service did not answer in time', { retryable: true })
          : httpError('BAD_GATEWAY', 'The anchor service is unreachable', { retryable: true });
      }
      const text = await upstream.text();
      let payload: unknown;
      try {
        payload = JSON.parse(text);
      } catch {
        throw new HttpError({
          statusCode: 502,
          code: 'BAD_GATEWAY',
          message: 'The anchor service sent a non-JSON answer',
          retryable: true,
        });
      }
      const retryAfter = upstream.headers.get('retry-after');
      if (retryAfter) reply.header('retry-after', retryAfter);
      return reply.code(upstream.status).send(payload);
    },
  );
}
