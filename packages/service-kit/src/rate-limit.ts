// Per-route rate limits with @fastify/rate-limit: Redis-backed (shared by every replica) when REDIS_URL
// is set, keyed by client IP as TRUST_PROXY resolves it, 429 + Retry-After + E700. DECISIONS D17.

import rateLimit from '@fastify/rate-limit';
import type { ProtocolProfile } from '@proto/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { clientAddressKey } from './client-address.ts';
import { FailoverHealth, failoverStore } from './failover-store.ts';
import { protocolError } from './http-errors.ts';
import { failoverTakeUnits, localTakeUnits, redisTakeUnits, type TakeUnits } from './rate-limit-units.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Takes several units of a per-key budget in one atomic step, all or none (POST /verify/batch: one unit
     * per bundle). Same store as the route limits (Redis, or memory while it is away), same key prefix.
     */
    takeRateLimitUnits?: TakeUnits;
  }
}

export interface RateLimitSetup {
  /** Redis URL of the shared store; without it each process counts on its own. */
  readonly redisUrl?: string;
  /** Prefix of the Redis keys (tests use a unique one). Default `<service>:rate-limit:`. */
  readonly keyPrefix?: string;
}

/** What the service learns about the limiter it installed (readiness reporting). */
export interface InstalledRateLimit {
  /** The Redis client of the shared store, when one is used; closed with the instance. */
  readonly redis?: Redis;
  /** True while the shared store is unusable and budgets are counted per process. */
  degraded(): boolean;
}

/** Route `config` entry limiting that route, e.g. `config: rateLimitPerIp(100, '1 minute')` (D17). */
export function rateLimitPerIp(max: number, timeWindow: number | string = '1 minute') {
  return { rateLimit: { max, timeWindow } } as const;
}

/**
 * The budget a request counts against (issue 12 item 5): request.ip, which takes X-Forwarded-For only
 * through TRUST_PROXY's hop rules, normalised (IPv6 by /64, IPv4-mapped → IPv4). A forwarded value that
 * is not an address counts against the peer that forwarded it, so junk spellings share one budget.
 */
export function rateLimitKey(request: FastifyRequest): string {
  return (
    clientAddressKey(request.ip) ??
    clientAddressKey(request.socket.remoteAddress ?? '') ??
    `peer:${request.socket.remoteAddress ?? 'unknown'}`
  );
}

const REDIS_WARN_INTERVAL_MS = 60_000;

/**
 * Registers @fastify/rate-limit without a global limit: only routes whose config carries
 * `rateLimit` (see rateLimitPerIp) are limited. With a Redis URL the budget is shared, and while
 * Redis is away each process counts on its own (never no limit).
 */
export async function installRateLimit(
  app: FastifyInstance,
  profile: ProtocolProfile,
  setup: RateLimitSetup,
): Promise<InstalledRateLimit> {
  const nameSpace = setup.keyPrefix ?? 'rate-limit:';
  let redis: Redis | undefined;
  let store: ReturnType<typeof failoverStore> | undefined;
  let health: FailoverHealth | undefined;
  let takeUnits: TakeUnits = localTakeUnits();
  if (setup.redisUrl) {
    // Loaded only when a Redis URL is set: a process counting on its own never needs the client (P80).
    const { Redis } = await import('ioredis');
    const client = new Redis(setup.redisUrl, {
      connectTimeout: 2000,
      // While Redis is away a command fails after one reconnection attempt (the store then counts
      // locally) instead of holding requests in an unbounded queue.
      maxRetriesPerRequest: 1,
      // A Redis that accepts the connection but does not answer must not hold requests either.
      commandTimeout: 1000,
    });
    redis = client;
    let lastWarning = 0;
    // The error object only: its message can name the host; the URL (and its password) never is logged.
    const warn = (error: Error, msg: string) => {
      const now = Date.now();
      if (now - lastWarning < REDIS_WARN_INTERVAL_MS) return;
      lastWarning = now;
      app.log.warn({ err: { message: error.message, code: (error as { code?: string }).code } }, msg);
    };
    client.on('error', (error: Error) =>
      warn(error, 'rate-limit store (Redis) error: counting per process until it is back'),
    );
    health = new FailoverHealth(client);
    store = failoverStore(
      { redis: client, onFallback: (error) => warn(error, 'rate-limit store (Redis) failed a command') },
      health,
      nameSpace,
    );
    takeUnits = failoverTakeUnits(redisTakeUnits(client, nameSpace), takeUnits, health, (error) =>
      warn(error, 'rate-limit store (Redis) failed a command'),
    );
    app.addHook('onClose', async () => {
      await client.quit().catch(() => client.disconnect());
    });
  }
  await app.register(rateLimit, {
    global: false,
    ...(store ? { store } : {}),
    nameSpace,
    // The failover store never fails; should anything else, the request is refused, not let through.
    skipOnError: false,
    keyGenerator: rateLimitKey,
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
  app.decorate('takeRateLimitUnits', takeUnits);
  const state = health;
  return {
    ...(redis ? { redis } : {}),
    degraded: () => state?.degraded() ?? false,
  };
}
