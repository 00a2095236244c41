// Configuration from environment variables, validated once at boot through env-schema.
// docs/architecture.md §3 (env-schema; a bad value stops the process with a clear message) and §6 (env only).
import { isIP } from 'node:net';
import envSchema from 'env-schema';
import { isSecretVariable, markSecretVariable } from './secret-values.ts';

/** Thrown for a bad configuration value; `runService` prints its message (no stack) and exits 1. */
export class ConfigError extends Error {
  /** The environment variable(s) at fault. */
  readonly variables: readonly string[];

  constructor(message: string, variables: readonly string[]) {
    super(message);
    this.name = 'ConfigError';
    this.variables = variables;
  }
}

/** A JSON-schema property describing one environment variable. */
export interface EnvProperty {
  readonly type: 'string' | 'integer' | 'number' | 'boolean';
  readonly default?: string | number | boolean;
  readonly enum?: readonly (string | number)[];
  readonly pattern?: string;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly description?: string;
  /** The variable must be set (no default makes sense). */
  readonly required?: boolean;
  /**
   * The value can be a credential: errors never print it (issue 12 item 4). Names ending in _KEY,
   * _TOKEN, _SECRET, _PASSWORD, _URL... (see secret-values.ts) count as secret without the marker.
   */
  readonly secret?: boolean;
}

export type EnvProperties = Readonly<Record<string, EnvProperty>>;

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** The value Fastify's `trustProxy` option takes: off, on, a hop count, or trusted addresses/CIDRs. */
export type TrustProxySetting = boolean | number | string[];

/** Variables every service reads (docs/architecture.md §3, §6). A service may override a default (e.g. PORT). */
export const SHARED_ENV_PROPERTIES = {
  PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 3000, description: 'HTTP port' },
  HOST: { type: 'string', minLength: 1, default: '0.0.0.0', description: 'Interface to listen on' },
  LOG_LEVEL: {
    type: 'string',
    enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    default: 'info',
    description: 'pino log level',
  },
  PROTOCOL_PROFILE: {
    type: 'string',
    enum: ['proto', 'dcp-ai'],
    default: 'proto',
    description: 'Protocol names: error prefix, contexts, well-known paths, metric prefix (D1)',
  },
  TRUST_PROXY: {
    type: 'string',
    default: 'false',
    description: 'false, true, a hop count, or a comma-separated list of proxy addresses/CIDRs',
  },
  DATA_DIR: { type: 'string', minLength: 1, default: './data', description: 'Directory for local state' },
  DATABASE_URL: { type: 'string', pattern: '^postgres(ql)?://', description: 'PostgreSQL connection URL' },
  REDIS_URL: { type: 'string', pattern: '^rediss?://', description: 'Redis URL (shared rate-limit store)' },
  SHUTDOWN_TIMEOUT_MS: {
    type: 'integer',
    minimum: 100,
    // A timer past 2^31 - 1 ms fires after 1 ms: the drain would end at once (P521).
    maximum: 3_600_000,
    default: 10000,
    description: 'Longest graceful drain on SIGTERM/SIGINT before a forced exit',
  },
  REQUEST_TIMEOUT_MS: {
    type: 'integer',
    minimum: 1000,
    maximum: 3_600_000,
    default: 120_000,
    description:
      'Longest time to receive a whole request, headers and body; a client still sending then gets 408 and its connection closed',
  },
  KEEP_ALIVE_TIMEOUT_MS: {
    type: 'integer',
    minimum: 1000,
    maximum: 600_000,
    // Fastify's own default: longer than the idle timeouts of the usual load balancers (60 s), so they close first.
    default: 72_000,
    description:
      'Longest a kept-alive connection may sit idle between requests before the service closes it (P587)',
  },
  DIAGNOSTIC_REPORT_DIR: {
    type: 'string',
    minLength: 1,
    description: 'Where SIGUSR2 writes a Node diagnostic report (default: the system temp directory)',
  },
  MAX_EVENT_LOOP_DELAY_MS: {
    type: 'integer',
    minimum: 0,
    default: 1000,
    description: 'Load shedding: answer 503 while the event loop lags more than this (0 turns it off)',
  },
  PROBE_REUSE_MS: {
    type: 'integer',
    minimum: 0,
    maximum: 60_000,
    // P582: 1000, as the manifests set it (P525), so that every deployment (compose, a bare `node main.ts`) bounds
    // anonymous probes one after another; the tests' own helpers set 0 to read each change at once.
    default: 1000,
    description:
      'GET /ready, GET /metrics: a readiness check or scrape result is reused this long after it settled, so probes one after another do not each call the dependencies (0: shared only while in flight)',
  },
  GIT_COMMIT: {
    type: 'string',
    // Empty is accepted (an image built with an empty REVISION) and reported as `unknown`.
    pattern: '^[A-Za-z0-9._-]{0,64}$',
    description: 'Commit the build came from, in the build_info metric (the image sets it from REVISION)',
  },
} as const satisfies EnvProperties;

/** The typed shape of SHARED_ENV_PROPERTIES after validation. */
export interface SharedConfig {
  readonly PORT: number;
  readonly HOST: string;
  readonly LOG_LEVEL: LogLevel;
  readonly PROTOCOL_PROFILE: 'proto' | 'dcp-ai';
  readonly TRUST_PROXY: TrustProxySetting;
  readonly DATA_DIR: string;
  readonly DATABASE_URL?: string;
  readonly REDIS_URL?: string;
  readonly SHUTDOWN_TIMEOUT_MS: number;
  readonly REQUEST_TIMEOUT_MS: number;
  readonly KEEP_ALIVE_TIMEOUT_MS: number;
  readonly DIAGNOSTIC_REPORT_DIR?: string;
  readonly MAX_EVENT_LOOP_DELAY_MS: number;
  readonly PROBE_REUSE_MS: number;
  readonly GIT_COMMIT?: string;
}

/** The shared properties overlaid with a service's own (a service's entry wins, e.g. PORT's default). */
export function defineEnv<P extends EnvProperties>(properties: P): typeof SHARED_ENV_PROPERTIES & P {
  return { ...SHARED_ENV_PROPERTIES, ...properties };
}

interface AjvLikeError {
  readonly instancePath?: string;
  readonly keyword?: string;
  readonly message?: string;
  readonly params?: Record<string, unknown>;
}

function describeAjvError(
  error: AjvLikeError,
  properties: EnvProperties,
  env: Record<string, unknown>,
): string {
  const variable =
    typeof error.params?.['missingProperty'] === 'string'
      ? error.params['missingProperty']
      : (error.instancePath ?? '').replace(/^\//, '');
  const property = properties[variable];
  const value = env[variable];
  let got = value === undefined ? '' : ` (got ${JSON.stringify(value)})`;
  if (value !== undefined && isSecretVariable(variable, property?.secret === true)) {
    // The rule, never the value; a Secret file's trailing newline is the usual culprit, so say so.
    const text = String(value);
    got =
      text !== text.trim()
        ? ' (value not shown; it has leading or trailing whitespace)'
        : ' (value not shown)';
  }
  if (error.keyword === 'enum' && property?.enum) {
    return `${variable} must be one of ${property.enum.join(', ')}${got}`;
  }
  if (error.keyword === 'required') return `${variable} is required`;
  return `${variable} ${error.message ?? 'is invalid'}${got}`;
}

function variableOf(error: AjvLikeError): string {
  const missing = error.params?.['missingProperty'];
  return typeof missing === 'string' ? missing : (error.instancePath ?? '').replace(/^\//, '');
}

/**
 * P521: the schema's coercion takes `Infinity` and `1e400` (Infinity) as integers, and past 2^53 integers are no longer
 * exact; every integer variable is a safe integer or the boot stops naming it (never the value: it may be a secret).
 */
function refuseUnsafeIntegers(properties: EnvProperties, parsed: Record<string, unknown>): void {
  for (const [name, property] of Object.entries(properties)) {
    const value = parsed[name];
    if (property.type === 'integer' && typeof value === 'number' && !Number.isSafeInteger(value)) {
      throw new ConfigError(
        `Invalid configuration: ${name} must be an integer of at most ${Number.MAX_SAFE_INTEGER}`,
        [name],
      );
    }
  }
}

/**
 * Parses TRUST_PROXY: `false`/`true`, a hop count, or a comma-separated list of IP addresses and CIDR
 * ranges. Fastify then derives `request.ip` from X-Forwarded-For only for trusted peers (D17).
 */
export function parseTrustProxy(value: string): TrustProxySetting {
  const text = value.trim().toLowerCase();
  if (text === '' || text === 'false' || text === '0') return false;
  if (text === 'true') return true;
  if (/^\d+$/.test(text)) return Number(text);
  const entries = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  for (const entry of entries) {
    const [address = '', prefix, extra] = entry.split('/');
    const family = isIP(address);
    const prefixOk =
      prefix === undefined ||
      (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32) && extra === undefined);
    if (family === 0 || !prefixOk) {
      throw new ConfigError(
        `TRUST_PROXY must be true, false, a hop count or a comma-separated list of IP addresses/CIDRs (bad entry ${JSON.stringify(entry)})`,
        ['TRUST_PROXY'],
      );
    }
  }
  return entries;
}

/**
 * Validates `env` against the given properties (defaults applied, strings coerced to the declared
 * types, unknown variables dropped) and returns the typed configuration. Empty strings count as unset.
 * Throws ConfigError naming every bad variable.
 */
export function loadConfig<T extends object = SharedConfig>(
  properties: EnvProperties = SHARED_ENV_PROPERTIES,
  env: Readonly<Record<string, string | undefined>> = process.env,
): T {
  const data: Record<string, string> = {};
  for (const name of Object.keys(properties)) {
    const value = env[name];
    if (value !== undefined && value !== '') data[name] = value;
  }
  const required = Object.keys(properties).filter((name) => properties[name]?.required === true);
  for (const [name, property] of Object.entries(properties)) if (property.secret) markSecretVariable(name);
  const schemaProperties = Object.fromEntries(
    Object.entries(properties).map(([name, { required: _required, secret: _secret, ...property }]) => [
      name,
      property,
    ]),
  );
  let parsed: Record<string, unknown>;
  try {
    parsed = envSchema<Record<string, unknown>>({
      schema: { type: 'object', properties: schemaProperties, required, additionalProperties: false },
      data,
      env: false,
      dotenv: false,
    });
  } catch (error) {
    const errors = (error as { errors?: AjvLikeError[] }).errors ?? [];
    if (errors.length === 0) throw new ConfigError(`Invalid configuration: ${(error as Error).message}`, []);
    const messages = errors.map((e) => describeAjvError(e, properties, data));
    throw new ConfigError(`Invalid configuration: ${messages.join('; ')}`, errors.map(variableOf));
  }
  refuseUnsafeIntegers(properties, parsed);
  if (typeof parsed['TRUST_PROXY'] === 'string')
    parsed['TRUST_PROXY'] = parseTrustProxy(parsed['TRUST_PROXY']);
  return parsed as T;
}
