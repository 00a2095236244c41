// POST /anchor: forwarded to the anchor service (ANCHOR_SERVICE_URL) with the caller's Authorization;
// 501 when none is configured. SPEC.md "POST /anchor (optional)", DECISIONS D19, D22.
import { errorResponses, fetchBounded, HttpError, httpError } from '@proto/service-kit';
import type { FastifyInstance } from 'fastify';

/** An anchor service's answer is a receipt of a few kB; anything past this is not one (P156). */
const MAX_FORWARD_ANSWER_BYTES = 256 * 1024;

function badGateway(message: string): HttpError {
  return new HttpError({ statusCode: 502, code: 'BAD_GATEWAY', message, retryable: true });
}

export async function anchorRoute(
  app: FastifyInstance,
  options: {
    readonly anchorServiceUrl?: string;
    /** The whole forward, the anchor service's answer included (ANCHOR_FORWARD_TIMEOUT_MS, P168). */
    readonly timeoutMs: number;
  },
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
        // The anchor service's own members, no other (P270): the body is forwarded as sent, so a member
        // neither service reads would travel under the caller's token and change nothing.
        body: {
          type: 'object',
          required: ['bundle_hash'],
          additionalProperties: false,
          properties: {
            bundle_hash: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' },
            bundle_hash_secondary: { type: 'string', pattern: '^sha3-256:[0-9a-f]{64}$' },
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
      const upstream = await fetchBounded(target, {
        method: 'POST',
        headers,
        body: JSON.stringify(request.body),
        timeoutMs: options.timeoutMs,
        maxBytes: MAX_FORWARD_ANSWER_BYTES,
        failWith: (fault) => {
          switch (fault.kind) {
            case 'redirect':
              request.log.warn({ target: target.origin, status: fault.status }, 'anchor service redirected');
              return badGateway(
                `The anchor service answered HTTP ${fault.status}; redirects are not followed (configure ANCHOR_SERVICE_URL to the final URL)`,
              );
            case 'too-large':
              request.log.warn(
                { target: target.origin, err: fault.error },
                'anchor service answer too large',
              );
              return badGateway(`The anchor service's answer is too large: ${fault.error.message}`);
            case 'timeout':
              request.log.warn({ err: fault.error, target: target.origin }, 'anchor service unreachable');
              return httpError('GATEWAY_TIMEOUT', 'The anchor service did not answer in time', {
                retryable: true,
              });
            case 'unreachable':
              request.log.warn({ err: fault.error, target: target.origin }, 'anchor service unreachable');
              return httpError('BAD_GATEWAY', 'The anchor service is unreachable', { retryable: true });
          }
        },
      });
      let payload: unknown;
      try {
        payload = JSON.parse(upstream.text());
      } catch {
        throw badGateway('The anchor service sent a non-JSON answer');
      }
      const retryAfter = upstream.headers.get('retry-after');
      if (retryAfter) reply.header('retry-after', retryAfter);
      return reply.code(upstream.status).send(payload);
    },
  );
}
