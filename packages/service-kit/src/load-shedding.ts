// Load shedding with @fastify/under-pressure: 503 + Retry-After + E702 while the event loop lags.
// docs/architecture.md §3 (under-pressure), PROTOCOL §7 (E702 BACKPRESSURE, retryable).

import underPressure from '@fastify/under-pressure';
import type { ProtocolProfile } from '@proto/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { protocolError } from './http-errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Per-route override read by @fastify/under-pressure; see LOAD_SHEDDING_EXEMPT. */
    pressureHandler?: (
      request: FastifyRequest,
      reply: FastifyReply,
      type: string,
      value: number | undefined,
    ) => void;
  }
}

/** Route config that keeps a route answering under pressure (liveness, metrics): probes must see the truth. */
export const LOAD_SHEDDING_EXEMPT = { pressureHandler: () => undefined } as const;

export interface LoadSheddingOptions {
  /** Event-loop delay (ms) above which requests are shed; 0 turns the check off. Default 1000. */
  readonly maxEventLoopDelay?: number;
  /** Event-loop utilisation (0–1) above which requests are shed; 0 (default) turns it off. */
  readonly maxEventLoopUtilization?: number;
  /** Heap bytes above which requests are shed; 0 (default) turns it off. */
  readonly maxHeapUsedBytes?: number;
  /** RSS bytes above which requests are shed; 0 (default) turns it off. */
  readonly maxRssBytes?: number;
  /** Seconds sent in Retry-After. Default 10. */
  readonly retryAfter?: number;
  /** How often the measures are sampled (ms). Default 1000. */
  readonly sampleInterval?: number;
}

export async function installLoadShedding(
  app: FastifyInstance,
  profile: ProtocolProfile,
  options: LoadSheddingOptions = {},
): Promise<void> {
  const retryAfter = options.retryAfter ?? 10;
  const shed = protocolError('BACKPRESSURE', profile, 'Service under backpressure, retry later', {
    headers: { 'retry-after': String(retryAfter) },
  });
  const sampleInterval = options.sampleInterval ?? 1000;
  // The first samples measure the boot itself (schema compilation, worker start-up, migrations),
  // not load: event-loop lag is ignored until two samples after the instance is ready.
  let measuringFrom = Number.POSITIVE_INFINITY;
  app.addHook('onReady', async () => {
    measuringFrom = Date.now() + 2 * sampleInterval;
  });
  const pressureHandler = async (
    _request: FastifyRequest,
    reply: FastifyReply,
    type: string,
  ): Promise<void> => {
    if (type === underPressure.TYPE_EVENT_LOOP_DELAY && Date.now() < measuringFrom) return;
    reply.header('retry-after', String(retryAfter));
    throw shed;
  };
  await app.register(underPressure, {
    maxEventLoopDelay: options.maxEventLoopDelay ?? 1000,
    maxEventLoopUtilization: options.maxEventLoopUtilization ?? 0,
    maxHeapUsedBytes: options.maxHeapUsedBytes ?? 0,
    maxRssBytes: options.maxRssBytes ?? 0,
    retryAfter,
    sampleInterval,
    pressureHandler,
  });
}
