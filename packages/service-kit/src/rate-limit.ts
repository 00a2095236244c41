// Per-route rate limits with @fastify/rate-limit: Redis-backed (shared by every replica) when REDIS_URL
// is set, keyed by client IP as TRUST_PROXY resolves it, 429 + Retry-After + E700. DECISIONS D17.

import rateLimit from '@fastify/rate-limit';
import type { ProtocolProfile } from '@proto/core';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { protocolError } from './http-errors.ts';

export interface RateLimitSetup {
  /** Redis URL of the shared store; without it each process counts on its own. */
  readonly redisUrl?: string;
  /** Prefix of the Redis keys (tests use a unique one). Default `<service>:rate-limit:`. */
  readonly keyPrefix?: string;
  /** When the store fails, let requests through (default true: availability over the limit). */
  readonly skipOnError?: boolean;
}

/** Route `config` entry limiting that route, e.g. `config: rateLimitPerIp(100, '1 minute')` (D17). */
export function rateLimitPerIp(max: number, timeWindow: number | string = '1 minute') {
  return { rateLimit: { max, timeWindow } } as const;
}

/**
 * Registers @fastify/rate-limit without a global limit: only routes whose config carries
 * `rateLimit` (see rateLimitPerIp) are limited. Returns the Redis client when one is used, so the
 * service can add a readiness check on it; it is closed with the instance.
 */
export async function installRateLimit(
  app: FastifyInstance,
  profile: ProtocolProfile,
  setup: RateLimitSetup,
): Promise<Redis | undefined> {
  let redis: Redis | undefined;
  if (setup.redisUrl) {
    redis = new Redis(setup.redisUrl, {
      connectTimeout: 2000,
      // While Redis is away a command fails after one reconnection attempt (then skipOnError applies)
      // instead of holding requests in an unbounded queue.
      maxRetriesPerRequest: 1,
    });
    redis.on('error', (error) => app.log.warn({ err: error }, 'rate-limit store (Redis) error'));
    const client = redis;
    app.addHook('onClose', async () => {
      await client.quit().catch(() => client.disconnect());
    });
  }
  await app.register(rateLimit, {
    global: false,
    ...(redis ? { redis } : {}),
    nameSpace: setup.keyPrefix ?? 'rate-limit:',
    skipOnError: setup.skipOnError ?? true,
    // request.ip already honours TRUST_PROXY: X-Forwarded-For counts only from a trusted peer.
    keyGenerator: (request) => request.ip,
    errorResponseBuilder: (_request, context) =>
      protocolError(
        'RATE_LIMIT_EXCEEDED',
        profile,
        `Rate limit exceeded: ${context.max} requests per window, retry in ${context.after}`,
        {
          headers: { 'retry-after': String(Math.max(1, Math.ceil(context.ttl / 1000))) },
        },
      ),
  });
  return redis;
}
