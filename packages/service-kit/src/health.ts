// Liveness (`/health`, no I/O) and readiness (`/ready`, runs the registered checks) endpoints.
// SPEC.md "GET /health" (liveness), docs/architecture.md §5 (probes on /health), §6 (error shape on 503).
import type { FastifyInstance } from 'fastify';
import { httpError } from './http-errors.ts';
import { LOAD_SHEDDING_EXEMPT } from './load-shedding.ts';

/**
 * Resolves (any value) when the dependency is usable; throws or returns false when it is not; returns
 * READINESS_DEGRADED when the service still works without it, in a lesser way (e.g. per-process limits).
 */
export type ReadinessCheck = () => Promise<unknown> | unknown;

/** A check's answer for "working, but degraded": `/ready` stays 200 with `status: "degraded"`. */
export const READINESS_DEGRADED = 'degraded';

type CheckOutcome = 'ok' | 'degraded' | 'failed' | 'timed out';

export interface HealthOptions {
  readonly service: string;
  readonly version: string;
  readonly profile: string;
  /** Extra fields for `/health`, computed per request without I/O. */
  readonly extra?: () => Record<string, unknown>;
  /** Longest a readiness check may take before it counts as failed. Default 2000 ms. */
  readonly readinessTimeoutMs?: number;
}

const startedAt = Date.now();

const TIMED_OUT = Symbol('timed out');

/**
 * Runs one check. The raw error goes to the log only: it can carry hosts, user names or a URL with
 * its password, so `/ready` names the dependency and the outcome, never the error text (issue 12 l).
 */
async function runCheck(
  app: FastifyInstance,
  name: string,
  check: ReadinessCheck,
  timeoutMs: number,
): Promise<CheckOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), timeoutMs);
  });
  try {
    const result = await Promise.race([Promise.resolve().then(check), timeout]);
    if (result === TIMED_OUT) {
      app.log.warn({ check: name, timeoutMs }, 'readiness check timed out');
      return 'timed out';
    }
    if (result === READINESS_DEGRADED) return 'degraded';
    return result === false ? 'failed' : 'ok';
  } catch (error) {
    app.log.warn({ check: name, err: error }, 'readiness check failed');
    return 'failed';
  } finally {
    clearTimeout(timer);
  }
}

export const healthResponseSchema = {
  type: 'object',
  required: ['status', 'service', 'version', 'profile', 'uptime_s'],
  properties: {
    status: { type: 'string', enum: ['ok'] },
    service: { type: 'string' },
    version: { type: 'string' },
    profile: { type: 'string' },
    uptime_s: { type: 'integer' },
  },
  additionalProperties: true,
} as const;

/**
 * Registers `/health` and `/ready` and returns the function that adds readiness checks
 * (decorated on the instance as `addReadinessCheck`).
 */
export function installHealth(
  app: FastifyInstance,
  options: HealthOptions,
): (name: string, check: ReadinessCheck) => void {
  const checks = new Map<string, ReadinessCheck>();
  const timeoutMs = options.readinessTimeoutMs ?? 2000;

  app.get(
    '/health',
    {
      config: LOAD_SHEDDING_EXEMPT,
      schema: {
        summary: 'Liveness check (no I/O)',
        tags: ['operations'],
        response: { 200: healthResponseSchema },
      },
    },
    async () => ({
      status: 'ok',
      service: options.service,
      version: options.version,
      profile: options.profile,
      ...options.extra?.(),
      uptime_s: Math.floor((Date.now() - startedAt) / 1000),
    }),
  );

  app.get(
    '/ready',
    {
      config: LOAD_SHEDDING_EXEMPT,
      schema: {
        summary: 'Readiness: runs every registered dependency check',
        tags: ['operations'],
        response: {
          200: {
            type: 'object',
            properties: {
              status: { type: 'string' },
              checks: { type: 'object', additionalProperties: { type: 'string' } },
            },
          },
        },
      },
    },
    async () => {
      const names = [...checks.keys()];
      const results = await Promise.all(
        names.map((name) => runCheck(app, name, checks.get(name)!, timeoutMs)),
      );
      const report = Object.fromEntries(names.map((name, i) => [name, results[i]!]));
      if (results.some((r) => r !== 'ok' && r !== 'degraded')) {
        throw httpError('NOT_READY', 'A readiness check failed', {
          retryable: true,
          details: { checks: report },
          headers: { 'retry-after': '5' },
        });
      }
      // Degraded stays 200: the instance still serves correctly (e.g. per-process rate limits), and a
      // shared dependency down everywhere must not take every replica out of the load balancer.
      return { status: results.includes('degraded') ? 'degraded' : 'ready', checks: report };
    },
  );

  return (name, check) => {
    checks.set(name, check);
  };
}
