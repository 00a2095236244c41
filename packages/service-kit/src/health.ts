// Liveness (`/health`, no I/O) and readiness (`/ready`, runs the registered checks) endpoints.
// SPEC.md "GET /health" (liveness), docs/architecture.md §5 (probes on /health), §6 (error shape on 503).
import type { FastifyInstance } from 'fastify';
import { httpError } from './http-errors.ts';
import { LOAD_SHEDDING_EXEMPT } from './load-shedding.ts';

/** Resolves (any value) when the dependency is usable; throws or returns false when it is not. */
export type ReadinessCheck = () => Promise<unknown> | unknown;

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

async function runCheck(check: ReadinessCheck, timeoutMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const result = await Promise.race([Promise.resolve().then(check), timeout]);
    return result === false ? 'failed' : 'ok';
  } catch (error) {
    return `failed: ${(error as Error).message}`;
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
      const results = await Promise.all(names.map((name) => runCheck(checks.get(name)!, timeoutMs)));
      const report = Object.fromEntries(names.map((name, i) => [name, results[i]!]));
      if (results.some((r) => r !== 'ok')) {
        throw httpError('NOT_READY', 'A readiness check failed', {
          retryable: true,
          details: { checks: report },
          headers: { 'retry-after': '5' },
        });
      }
      return { status: 'ready', checks: report };
    },
  );

  return (name, check) => {
    checks.set(name, check);
  };
}
