// One rate-limit budget for every POST /v2 route: 100 per minute per client IP, shared through Redis.
// Implements D17 / SPEC.md Limits (429 + E700 + Retry-After; TRUST_PROXY decides whose IP counts).
import type { FastifyInstance, onRequestHookHandler } from 'fastify';

/** SPEC.md Limits: 100 requests per minute per IP on all POST /v2 endpoints. */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 100;

interface RateLimitDecorator {
  rateLimit?: (options: { max: number; timeWindow: number }) => onRequestHookHandler;
}

/**
 * An onRequest hook counting against one budget for all POST /v2 routes. It comes from the
 * @fastify/rate-limit instance the service kit installed, so it shares its store (Redis at REDIS_URL,
 * with the kit's key prefix), its key (request.ip, which honours TRUST_PROXY) and its 429 answer
 * (E700 with Retry-After). The kit's per-route helper (`rateLimitPerIp`) would give each route its own
 * budget; the decorator's limiter is one counter for every route it is attached to.
 * Undefined when the app has no rate limiter or `perMinute` is 0.
 */
export function v2PostRateLimit(app: FastifyInstance, perMinute: number): onRequestHookHandler | undefined {
  if (!Number.isSafeInteger(perMinute) || perMinute < 0) {
    throw new RangeError(`rate limit must be a non-negative integer, got ${perMinute}`);
  }
  const { rateLimit } = app as unknown as RateLimitDecorator;
  if (perMinute === 0) return undefined;
  if (typeof rateLimit !== 'function') {
    app.log.warn('no rate limiter installed: POST /v2 is not rate-limited');
    return undefined;
  }
  return rateLimit({ max: perMinute, timeWindow: 60_000 });
}
