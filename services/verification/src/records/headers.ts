// The four response headers every /v2 response carries, errors and unknown /v2 paths included.
// Implements D17 (exact values) and SPEC.md "/v2 endpoints add these response headers".
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';

/** D17, the values upstream's gateway sends (PROTOCOL §9.1). */
export const V2_RESPONSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'strict-transport-security': 'max-age=63072000; includeSubDomains',
  'cache-control': 'no-store',
});

export function isV2Path(url: string): boolean {
  const path = url.split('?', 1)[0] ?? '';
  return path === '/v2' || path.startsWith('/v2/');
}

/**
 * Sets the headers in `onSend`, which runs for every reply (handlers, the error handler, the not-found
 * handler, rate-limit refusals, 413s). Registered without encapsulation so that it also covers /v2 paths
 * that match no route.
 */
async function v2ResponseHeadersPlugin(app: FastifyInstance): Promise<void> {
  app.addHook('onSend', async (request, reply, payload) => {
    if (isV2Path(request.url)) reply.headers(V2_RESPONSE_HEADERS);
    return payload;
  });
}

// fastify-plugin: the hook lands in the parent (root) context instead of a child scope.
export const v2ResponseHeaders: FastifyPluginAsync = fp(v2ResponseHeadersPlugin, {
  name: 'proto-v2-response-headers',
  fastify: '5.x',
});
