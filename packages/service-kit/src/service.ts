// The Fastify instance every service starts from: logging, headers, cache defaults, limits, errors, load shedding,
// CBOR, metrics, rate limits, OpenAPI docs, health and readiness. docs/architecture.md §3 and §6.

import { tmpdir } from 'node:os';
import { findProfile, type ProtocolProfile } from '@proto/core';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import { declaresForeignCharset, FOREIGN_CHARSET } from './body-charset.ts';
import { strictBodyValidators } from './body-validation.ts';
import { installCacheDefaults } from './cache-control.ts';
import { clientErrorHandler } from './client-errors.ts';
import type { SharedConfig, TrustProxySetting } from './config.ts';
import { installDocs } from './docs.ts';
import { installErrorHandling } from './error-handler.ts';
import { installHealth, READINESS_DEGRADED, type ReadinessCheck } from './health.ts';
import { errorResponseSchema, type HttpError, httpError, protocolError } from './http-errors.ts';
import { installLoadShedding, type LoadSheddingOptions } from './load-shedding.ts';
import {
  genRequestId,
  loggerOptions,
  REQUEST_ID_HEADER,
  requestChildLogger,
  requestLineLogger,
} from './logging.ts';
import { installDependencyMetrics, installMetrics, METRIC_NAMESPACE, ServiceMetrics } from './metrics.ts';
import { installNodeAnswers, NODE_HOST_CHECK_OFF, nodeAnswerRefusal } from './node-answers.ts';
import { queryFormRefusal } from './query-forms.ts';
import { type InstalledRateLimit, installRateLimit, type RateLimitSetup } from './rate-limit.ts';
import { framingRefusal, originFormUrl } from './request-framing.ts';
import { installRequestLog } from './request-log.ts';
import { MAX_PATH_PARAM_LENGTH, routerRefusalHandler } from './router-refusals.ts';
import { computeSecurityHeaders, writeSecurityHeaders } from './security-headers.ts';
import { sharedWhileRunning } from './shared-run.ts';
import { installCloseOnUnreadBody } from './unread-body.ts';
import { installWireFormats } from './wire-format.ts';

/** SPEC.md Limits: request bodies up to 1 MB; larger ones are answered 413. */
export const DEFAULT_BODY_LIMIT = 1_048_576;

/** While draining, a keep-alive connection idle this long (ms) is closed. */
const DRAIN_KEEP_ALIVE_MS = 500;

export interface ServiceInfo {
  readonly name: string;
  readonly version: string;
  readonly host: string;
  readonly port: number;
  readonly shutdownTimeoutMs: number;
  /** Directory for the diagnostic report SIGUSR2 writes. */
  readonly diagnosticReportDir: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The protocol profile selected by PROTOCOL_PROFILE (D1). */
    protocolProfile: ProtocolProfile;
    /** The service's metric registry: `proto_` names under every profile (the profile is a build_info label). */
    serviceMetrics: ServiceMetrics;
    serviceInfo: ServiceInfo;
    /** Adds a dependency check run by `GET /ready` (503 when one fails). */
    addReadinessCheck(name: string, check: ReadinessCheck): void;
  }
}

export interface ServiceOptions {
  /** Short service name, e.g. `verification` (logs, /health, OpenAPI title). */
  readonly name: string;
  readonly version: string;
  readonly description?: string;
  readonly config: SharedConfig;
  /** Logging: true (stdout, default), false, or a destination stream (tests). */
  readonly logger?: boolean | { readonly stream: { write(line: string): unknown } };
  readonly bodyLimit?: number;
  /** Load-shedding thresholds; false turns under-pressure off. Default from MAX_EVENT_LOOP_DELAY_MS. */
  readonly loadShedding?: LoadSheddingOptions | false;
  /** Rate-limit store; false leaves @fastify/rate-limit out. Default: Redis at REDIS_URL when set. */
  readonly rateLimit?: RateLimitSetup | false;
  /** OpenAPI + Swagger UI at /docs. Default true. */
  readonly docs?: boolean;
  /** Node.js process metrics in /metrics. Default true. */
  readonly defaultMetrics?: boolean;
  /** Extra `/health` fields, computed without I/O. */
  readonly health?: () => Record<string, unknown>;
}

/** `response` entries for the shared error body, to spread into route schemas (OpenAPI). */
export const errorResponses = {
  '4xx': { $ref: 'ErrorResponse#' },
  '5xx': { $ref: 'ErrorResponse#' },
} as const;

/** A hop count becomes Fastify's trust function (trust the nearest `n` proxies). */
function toFastifyTrustProxy(
  setting: TrustProxySetting,
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  return setting;
}

/**
 * Builds a ready-to-extend Fastify instance. Routes added afterwards inherit the error shape, the
 * CBOR wire format, metrics and docs. Listening and shutdown are `runService`'s job.
 */
/**
 * No service decodes a content coding, and one that read a gzip-labelled body as plain bytes would act on
 * something a proxy or filter honouring the label reads differently, or not at all: such a body gets 415 with
 * the codings accepted (RFC 9110 §15.5.16), before it is read (P160).
 */
const UNDECODED_BODY = () =>
  httpError('UNSUPPORTED_MEDIA_TYPE', 'Content-Encoding is not supported: send the body uncompressed', {
    headers: { 'accept-encoding': 'identity' },
  });

/** `identity` (any case, surrounding spaces) or empty: the body is the bytes as sent. */
function isIdentityCoding(header: string): boolean {
  const coding = header.trim().toLowerCase();
  return coding === '' || coding === 'identity';
}

/**
 * Node's own settings behind REQUEST_TIMEOUT_MS: the headers get no longer than the whole request (Node's 60 s
 * otherwise), and Node looks for requests past their time often enough for the timeout to mean what it says
 * (every 30 s by default: at most a quarter of the timeout late here, checked at least once a second).
 */
export function requestTimeouts(requestTimeoutMs: number): {
  headersTimeout: number;
  requestTimeout: number;
  connectionsCheckingInterval: number;
} {
  return {
    headersTimeout: Math.min(60_000, requestTimeoutMs),
    requestTimeout: requestTimeoutMs,
    connectionsCheckingInterval: Math.min(30_000, Math.max(1_000, Math.floor(requestTimeoutMs / 4))),
  };
}

export async function createService(options: ServiceOptions): Promise<FastifyInstance> {
  const { config } = options;
  const profile = findProfile(config.PROTOCOL_PROFILE);
  if (!profile) throw new Error(`unknown protocol profile ${config.PROTOCOL_PROFILE}`);
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;

  const logger =
    options.logger === false
      ? false
      : loggerOptions({
          level: config.LOG_LEVEL,
          service: options.name,
          ...(typeof options.logger === 'object' ? { stream: options.logger.stream } : {}),
        });

  // Before the instance: the router's refusals (frameworkErrors) are answered with these headers too (P148).
  const securityHeaders = await computeSecurityHeaders();
  /** Set once the metrics exist; a router refusal before then (there is none: nothing listens yet) is not counted. */
  let countError: (error: HttpError) => void = () => {};
  /** Set once the instance exists; the parser refuses nothing before the service listens. */
  let serviceLog: FastifyBaseLogger | undefined;
  const app = Fastify({
    logger,
    routerOptions: { maxParamLength: MAX_PATH_PARAM_LENGTH },
    frameworkErrors: routerRefusalHandler({
      profile,
      bodyLimit,
      securityHeaders,
      onError: (error) => countError(error),
    }),
    // The parser's refusals (a request past REQUEST_TIMEOUT_MS, a malformed request, headers too large) too (P170).
    clientErrorHandler: clientErrorHandler({
      securityHeaders,
      onError: (error) => countError(error),
      log: () => serviceLog,
    }),
    bodyLimit,
    // Bodies are validated as sent, never coerced to the declared type; query strings and params still are (P259).
    schemaController: { compilersFactory: { buildValidator: strictBodyValidators() } },
    // Fastify turns Node's whole-request timeout off by default: a client that declared a body and then sent
    // a byte a minute kept its connection, and the buffer its Content-Length reserved, for ever (P159).
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    http: { ...requestTimeouts(config.REQUEST_TIMEOUT_MS), ...NODE_HOST_CHECK_OFF },
    // An idle kept-alive connection was held for Fastify's fixed 72 s whatever the deployment wanted (P587).
    keepAliveTimeout: config.KEEP_ALIVE_TIMEOUT_MS,
    trustProxy: toFastifyTrustProxy(config.TRUST_PROXY),
    // An absolute-form target is routed, logged and redirected by its path alone (P586).
    rewriteUrl: originFormUrl,
    genReqId: genRequestId,
    requestIdHeader: false,
    // One cheap line per request instead of Fastify's two: installRequestLog below (request-log.ts).
    logController: new LogController({ disableRequestLogging: true }),
    // request.log makes its pino child only when something logs through it (logging.ts, P139).
    childLoggerFactory: requestChildLogger as unknown as NonNullable<
      FastifyServerOptions['childLoggerFactory']
    >,
    // Requests arriving while the service drains get our own 503 (error shape, Retry-After) from the
    // hook below instead of Fastify's built-in body.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
  }) as unknown as FastifyInstance;

  serviceLog = app.log;
  if (config.TRUST_PROXY === true) {
    // Every hop trusted: the client's own X-Forwarded-For entry becomes its address (and its rate-limit key).
    app.log.warn(
      'TRUST_PROXY=true trusts every X-Forwarded-For hop, so clients choose their address; set the number of proxies or their addresses/CIDRs',
    );
  }
  const metrics = new ServiceMetrics(METRIC_NAMESPACE, {
    defaultMetrics: options.defaultMetrics ?? true,
    build: {
      service: options.name,
      profile: profile.name,
      version: options.version,
      // Set by the image build (docker/Dockerfile: GIT_COMMIT from ARG REVISION); a source checkout reports `unknown`.
      commit: config.GIT_COMMIT || 'unknown',
    },
  });
  installRequestLog(app, logger === false ? undefined : requestLineLogger(logger));
  // Expect and a missing Host go through the hooks below instead of Node's own bare answers (P256).
  installNodeAnswers(app);
  installCloseOnUnreadBody(app);
  // First of the onSend hooks: every reply says how long a cache may keep it, and any later hook may say otherwise.
  installCacheDefaults(app);
  app.decorate('protocolProfile', profile);
  app.decorate('serviceMetrics', metrics);
  app.decorate('serviceInfo', {
    name: options.name,
    version: options.version,
    host: config.HOST,
    port: config.PORT,
    shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
    diagnosticReportDir: config.DIAGNOSTIC_REPORT_DIR ?? tmpdir(),
  } satisfies ServiceInfo);
  app.addSchema({ $id: 'ErrorResponse', ...errorResponseSchema });

  const errorsByCode = metrics.counter('http_errors_total', 'Error responses by error code', ['code']);
  countError = (error) => errorsByCode.inc({ code: error.code });
  installErrorHandling(app, profile, bodyLimit, countError);

  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    // Keep-alive connections that fall idle after their in-flight response would otherwise hold the
    // drain open for Fastify's 72 s keep-alive timeout; already idle ones are closed by Fastify.
    app.server.keepAliveTimeout = Math.min(app.server.keepAliveTimeout, DRAIN_KEEP_ALIVE_MS);
    done();
  });
  // Callback style: this runs for every request; no promise per request (P113).
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    if (closing) {
      reply.header('connection', 'close');
      done(
        protocolError('BACKPRESSURE', profile, 'Service is shutting down; retry on another instance', {
          headers: { 'retry-after': '1' },
        }),
      );
      return;
    }
    // After the drain check: the drain's 503 went out before Helmet's hooks ran, without these headers.
    writeSecurityHeaders(reply.raw, securityHeaders);
    const refusal =
      nodeAnswerRefusal(request) ?? framingRefusal(request.raw) ?? queryFormRefusal(request.query, profile);
    if (refusal !== undefined) {
      done(refusal);
      return;
    }
    const coding = request.headers['content-encoding'];
    if (coding !== undefined && !isIdentityCoding(coding)) {
      done(UNDECODED_BODY());
      return;
    }
    const contentType = request.headers['content-type'];
    if (contentType !== undefined && declaresForeignCharset(contentType)) {
      done(FOREIGN_CHARSET());
      return;
    }
    done();
  });
  if (options.loadShedding !== false) {
    await installLoadShedding(app, profile, {
      maxEventLoopDelay: config.MAX_EVENT_LOOP_DELAY_MS,
      ...options.loadShedding,
    });
  }
  installWireFormats(app, profile);
  let limiter: InstalledRateLimit | undefined;
  if (options.rateLimit !== false) {
    const setup = options.rateLimit ?? {};
    const redisUrl = setup.redisUrl ?? config.REDIS_URL;
    limiter = await installRateLimit(app, profile, {
      ...setup,
      keyPrefix: setup.keyPrefix ?? `${profile.shortName}:${options.name}:rate-limit:`,
      ...(redisUrl ? { redisUrl } : {}),
    });
  }
  if (options.docs !== false) {
    await installDocs(app, {
      title: `${options.name} service`,
      version: options.version,
      ...(options.description ? { description: options.description } : {}),
    });
  }
  installMetrics(app, metrics, config.PROBE_REUSE_MS);
  const addReadinessCheck = installHealth(app, {
    service: options.name,
    version: options.version,
    profile: profile.name,
    ...(options.health ? { extra: options.health } : {}),
  });
  const dependencies = installDependencyMetrics(metrics);
  app.decorate('addReadinessCheck', (name: string, check: ReadinessCheck) => {
    // P485, P525: /ready and the dependency_up collector answer anyone; probes in flight together, or within
    // PROBE_REUSE_MS of each other, share one call.
    const shared = sharedWhileRunning(check, config.PROBE_REUSE_MS);
    addReadinessCheck(name, shared);
    dependencies.add(name, shared);
  });
  if (limiter?.redis) {
    const installed = limiter;
    addReadinessCheck('rate-limit-store', () => (installed.degraded() ? READINESS_DEGRADED : true));
    // The metric says down while the limiter counts per process (readiness stays 200 "degraded", P8).
    dependencies.add('redis', () => !installed.degraded());
  }
  return app;
}
