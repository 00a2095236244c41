// Public API of the service kit: what every Fastify service of the stack shares.
// docs/architecture.md §1 (service-kit: config, logs, metrics, errors, limits), §3 (runtime), §6 (conventions).

export * from '@proto/clients';
export {
  answerNotModified,
  CACHE_NO_STORE,
  CACHE_REVALIDATE,
  noneMatchHits,
  requestNotModified,
  strongEntityTag,
} from './cache-control.ts';
export { CborError, decodeCbor, encodeCbor } from './cbor.ts';
export { clientAddressKey } from './client-address.ts';
export {
  ConfigError,
  defineEnv,
  type EnvProperties,
  type EnvProperty,
  type LogLevel,
  loadConfig,
  parseTrustProxy,
  SHARED_ENV_PROPERTIES,
  type SharedConfig,
  type TrustProxySetting,
} from './config.ts';
export { type DocsOptions, installDocs } from './docs.ts';
export { installErrorHandling, sendHttpError, toHttpError } from './error-handler.ts';
export {
  type HealthOptions,
  healthResponseSchema,
  READINESS_DEGRADED,
  type ReadinessCheck,
} from './health.ts';
export { parseHttpDate, unmodifiedSince } from './http-date.ts';
export {
  bodyTooLarge,
  type ErrorBody,
  type ErrorOptions,
  errorResponseSchema,
  HTTP_ERROR_STATUS,
  HttpError,
  type HttpErrorInit,
  type HttpErrorName,
  httpError,
  protocolError,
} from './http-errors.ts';
export { parseJsonVariable } from './json-variable.ts';
export * from './jurisdiction.ts';
export {
  ed25519PublicFromSeed,
  type KeyFileLog,
  type KeyFileOptions,
  type KeyFileText,
  parseEd25519SecretKey,
  readOrCreateKeyFile,
} from './key-file.ts';
export { LOAD_SHEDDING_EXEMPT, type LoadSheddingOptions } from './load-shedding.ts';
export { genRequestId, REDACT_PATHS, REQUEST_ID_HEADER } from './logging.ts';
export {
  type Counter,
  type Gauge,
  type Histogram,
  LATENCY_BUCKETS,
  type Registry,
  ServiceMetrics,
} from './metrics.ts';
export {
  OPERATOR_TOKEN_ENV,
  OPERATOR_TOKEN_FILE,
  type OperatorTokens,
  operatorTokenGuard,
  parseTokenList,
  type ResolveTokensOptions,
  resolveOperatorTokens,
  tokenMatches,
} from './operator-token.ts';
export { type InstalledRateLimit, type RateLimitSetup, rateLimitKey, rateLimitPerIp } from './rate-limit.ts';
export type { TakeUnits, UnitsTaken } from './rate-limit-units.ts';
export * from './revocation-client.ts';
export * from './revocation-source-url.ts';
export { exitOnConfigError, runService } from './run.ts';
export { describeJsonError, isSecretVariable, redactSecrets } from './secret-values.ts';
export {
  createService,
  DEFAULT_BODY_LIMIT,
  errorResponses,
  type ServiceInfo,
  type ServiceOptions,
} from './service.ts';
export { acceptQuality, CBOR_CONTENT_TYPE, parseCborBody, prefersCbor, varyOnAccept } from './wire-format.ts';
