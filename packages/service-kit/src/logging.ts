// pino logger settings: level from LOG_LEVEL, a request id per request (echoed as X-Request-Id), and
// redaction of credentials and secret keys. docs/architecture.md §3 (pino logs with redaction), DECISIONS D22.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { pino } from 'pino';
import type { LogLevel } from './config.ts';

export const REQUEST_ID_HEADER = 'x-request-id';
const SAFE_REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Paths censored in every log line: credentials in headers, tokens, secret keys (any depth ≤ 2). */
export const REDACT_PATHS: readonly string[] = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'authorization',
  'token',
  'tokens',
  'operator_token',
  'password',
  'secret',
  'secret_key',
  'secret_key_b64',
  'secretKey',
  'secretKeyB64',
  'private_key',
  'privateKey',
  '*.authorization',
  '*.token',
  '*.tokens',
  '*.operator_token',
  '*.password',
  '*.secret',
  '*.secret_key',
  '*.secret_key_b64',
  '*.secretKey',
  '*.secretKeyB64',
  '*.private_key',
  '*.privateKey',
  '*.*.secret_key_b64',
  '*.*.secretKeyB64',
  '*.*.private_key',
];

/** Takes a caller's X-Request-Id when it is short and plain (no log injection), else a fresh UUID. */
export function genRequestId(request: IncomingMessage): string {
  const given = request.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
}

export interface LoggerSettings {
  readonly level: LogLevel;
  /** Destination stream (tests capture lines); default stdout. */
  readonly stream?: { write(line: string): unknown };
  readonly service: string;
}

/**
 * Standard output written asynchronously: a line is handed to the kernel off the event loop, lines logged
 * while a write is in flight go out together, and nothing waits for a fill level (no delay when quiet).
 * pino flushes it synchronously when the process exits. The default synchronous stdout was 3–4 % of the
 * verification service's main thread under load (`writeString`, issue 14 item 1).
 */
function asyncStdout() {
  return pino.destination({ dest: 1, sync: false });
}

/** Fastify `logger` option (pino) with the redaction list and the service name on every line. */
export function loggerOptions(settings: LoggerSettings) {
  return {
    level: settings.level,
    base: { service: settings.service, pid: process.pid },
    redact: { paths: [...REDACT_PATHS], censor: '[REDACTED]' },
    stream: settings.stream ?? asyncStdout(),
  };
}

/**
 * The logger of the one line per request (request-log.ts): the same level, base fields and stream as the
 * service's, without the redaction list. That line holds only fields the service builds (method, URL,
 * status, time), none of which a redaction path names, and the 32 paths with wildcards cost about 28 µs a
 * line against 1.3 µs without (pino, one core; issue 14 item 1).
 */
export function requestLineLogger(options: ReturnType<typeof loggerOptions>): pino.Logger {
  return pino({ level: options.level, base: options.base }, options.stream as pino.DestinationStream);
}
