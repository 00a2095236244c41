// POST /anchor: forwarded to the anchor service (ANCHOR_SERVICE_URL) with the caller's Authorization;
// 501 when none is configured. SPEC.md "POST /anchor (optional)", DECISIONS D19, D22.
import {
  AnswerTooLarge,
  errorResponses,
  HttpError,
  httpError,
  isRedirect,
  readBoundedText,
} from '@proto/service-kit';
import type { FastifyInstance } from 'fastify';

const FORWARD_TIMEOUT_MS = 15_000;
/** An anchor service's answer is a receipt of a few kB; anything past this is not one (P156). */
const MAX_FORWARD_ANSWER_BYTES = 256 * 1024;

function badGateway(message: string): HttpError {
  return new HttpError({ statusCode: 502, code: 'BAD_GATEWAY', message, retryable: true });
}

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
      // The timeout covers the answer's body too; a redirect is not followed (it would carry the caller's
      // token to a URL the operator never configured), and the body is read up to a cap (P156).
      let upstream: Response;
      let text: string;
      try {
        upstream = await fetch(target, {
          method: 'POST',
          headers,
          body: JSON.stringify(request.body),
          redirect: 'manual',
          signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
        });
        if (isRedirect(upstream)) {
          await upstream.body?.cancel().catch(() => undefined);
          request.log.warn({ target: target.origin, status: upstream.status }, 'anchor service redirected');
          throw badGateway(
            `The anchor service answered HTTP ${upstream.status}; redirects are not followed (configure ANCHOR_SERVICE_URL to the final URL)`,
          );
        }
        text = await readBoundedText(upstream, MAX_FORWARD_ANSWER_BYTES);
      } catch (error) {
        if (error instanceof HttpError) throw error;
        if (error instanceof AnswerTooLarge) {
          request.log.warn({ target: target.origin, err: error }, 'anchor service answer too large');
          throw badGateway(`The anchor service's answer is too large: ${error.message}`);
        }
        const timedOut = (error as Error).name === 'TimeoutError';
        request.log.warn({ err: error, target: target.origin }, 'anchor service unreachable');
        throw timedOut
          ? httpError('GATEWAY_TIMEOUT', 'The anchor service did not answer in time', { retryable: true })
          : httpError('BAD_GATEWAY', 'The anchor service is unreachable', { retryable: true });
      }
      let payload: unknown;
      try {
        payload = JSON.parse(text);
      } catch {
        throw badGateway('The anchor service sent a non-JSON answer');
      }
      const retryAfter = upstream.headers.get('retry-after');
      if (retryAfter) reply.header('retry-after', retryAfter);
      return reply.code(upstream.status).send(payload);
    },
  );
}
