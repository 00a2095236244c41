// pino logger settings: level from LOG_LEVEL, a request id per request (echoed as X-Request-Id), and
// redaction of credentials and secret keys. docs/architecture.md §3 (pino logs with redaction), DECISIONS D22.
import { randomUUID } from 'node:crypto';
import { fstatSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { jsonWithHiddenEscaped } from '@proto/core';
import { pino } from 'pino';
import type { LogLevel } from './config.ts';
import { LineWriter } from './line-writer.ts';
import { redactSecrets } from './secret-values.ts';

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

/** The id each request was given, so that asking again (the parser's refusal of it, P170) gives the same one. */
const givenIds = new WeakMap<IncomingMessage, string>();

/**
 * Takes a caller's X-Request-Id when it is short and plain (no log injection), else a fresh UUID; the same id
 * for the same request every time. A 408 for a request Fastify had already logged under a fresh id carried
 * another fresh one, so the answer a client reports could not be found in the log (P187).
 */
export function genRequestId(request: IncomingMessage): string {
  const known = givenIds.get(request);
  if (known !== undefined) return known;
  const given = request.headers[REQUEST_ID_HEADER];
  const id = typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
  givenIds.set(request, id);
  return id;
}

export interface LoggerSettings {
  readonly level: LogLevel;
  /** Destination stream (tests capture lines); default stdout. */
  readonly stream?: { write(line: string): unknown };
  readonly service: string;
}

/** Log characters held before a write (about twenty request lines) and the longest a held line waits (P139). */
export const LOG_BATCH_BYTES = 4096;
export const LOG_BATCH_MS = 100;

/** The wait before a write that met a full pipe is tried again (sonic-boom's, kept: P147's cost reasoning). */
const BUSY_WRITE_WAIT_MS = 100;

/**
 * The longest the synchronous flushes wait on a full pipe, from the first EAGAIN (P147): one budget for the exit's
 * flush and every fatal line's before it, until the pipe has taken everything again (P420). A reader that is
 * there but behind (a log shipper busy with its own output, a container runtime's copier descheduled on a
 * loaded node) only has to take one pipe's worth (64 KiB) for the flush to go on; two seconds is twenty of
 * the writer's 100 ms retries (BUSY_WRITE_WAIT_MS), far past a scheduling hiccup, and a reader that takes nothing for that long
 * is stuck as far as an exit can tell. It comes on top of SIGTERM's drain (SHUTDOWN_TIMEOUT_MS, 10 s by
 * default) and the last line's wait (1 s, run.ts): 13 s, inside docker-compose's 15 s stop_grace_period
 * and Kubernetes' 30 s grace (after its 5 s preStop), so the exit code is the service's, not a SIGKILL's.
 */
export const FLUSH_SYNC_BUDGET_MS = 2_000;

/**
 * Makes standard output non-blocking when it is a pipe or a socket (P147), so that a write to a reader that
 * does not read returns EAGAIN at once instead of holding the thread: the main thread's now (P290). Node
 * leaves a pipe it inherits blocking until `process.stdout` is first read, which opens it as a libuv stream
 * and sets O_NONBLOCK (as any `console.log` does). The flag is on the pipe's open file, shared with any other
 * process writing to it; Node puts the flags it found back at exit. A file never fills and is left as it is;
 * so is a terminal (blocking: a write waits for it, as Node's own console.log does on a terminal).
 */
function nonBlockingStdout(): void {
  let kind: { isFIFO(): boolean; isSocket(): boolean };
  try {
    kind = fstatSync(1);
  } catch {
    return; // No standard output: the writes fail (EBADF) and every line is dropped.
  }
  // Reading the getter is what opens it; the stream itself is not written through here.
  if (kind.isFIFO() || kind.isSocket()) void process.stdout;
}

/**
 * The most log bytes (UTF-8, as written: P422) held while standard output's reader does not read (P292): about
 * 40,000 request lines, minutes of a busy service's log, and memory a service can spare; past it, lines are dropped and
 * counted, not held until the process runs out of memory.
 */
export const LOG_HOLD_MAX_BYTES = 8 * 1024 * 1024;

/** The services whose lines standard output's writer carries (one in a service's process; tests start several). */
const stdoutServices: string[] = [];

/**
 * The warning line (pino's shape, `service` included as on every other line: P421) that stands for the lines
 * dropped while LOG_HOLD_MAX_BYTES were held. With several services on the writer, their names joined by commas:
 * the dropped lines may be any of theirs.
 */
function dropNotice(dropped: number): string {
  const line = {
    level: 40,
    time: Date.now(),
    service: stdoutServices.join(','),
    pid: process.pid,
    dropped,
    msg: 'log lines dropped: standard output was full',
  };
  return `${JSON.stringify(line)}\n`;
}

/** This thread's writer of standard output: one, so that two services' lines on the same pipe keep their order. */
let stdoutWriter: LineWriter | undefined;

/**
 * Standard output, written in batches by this thread (line-writer.ts). The default synchronous stdout wrote
 * each line with its own syscall, 3–4 % of the verification service's main thread under load (`writeString`,
 * issue 14 item 1), so lines are held up to LOG_BATCH_BYTES or LOG_BATCH_MS (P139). sonic-boom's asynchronous
 * batches went through libuv's pool, where the exit's or a fatal line's synchronous flush could not wait for
 * them: lines came out of order, or were lost (P290); the writer's batches never leave this thread. A batch's
 * writeSync does not wait on the reader: a pipe or a socket is non-blocking (it takes what fits, the rest waits
 * for the retry), a file takes it into the page cache; only a terminal blocks. One writeSync of ~4 KB cost the
 * main thread less than handing it to the pool did (P290's A/B). What is held at exit is written then (pino's
 * exit flush, registered here since the stream is not pino's own), or dropped once the reader has gone (P145)
 * or has not read for FLUSH_SYNC_BUDGET_MS (P147).
 */
function bufferedStdout(service: string): LineWriter {
  if (!stdoutServices.includes(service)) stdoutServices.push(service);
  if (stdoutWriter !== undefined) return stdoutWriter;
  nonBlockingStdout();
  const writer = new LineWriter({
    fd: 1,
    minLength: LOG_BATCH_BYTES,
    holdMs: LOG_BATCH_MS,
    retryMs: BUSY_WRITE_WAIT_MS,
    budgetMs: FLUSH_SYNC_BUDGET_MS,
    maxHeld: LOG_HOLD_MAX_BYTES,
    dropNotice,
  });
  process.once('exit', () => writer.flushSync());
  stdoutWriter = writer;
  return writer;
}

/** How deep an error's serialized form (causes, aggregated errors, their properties) is scrubbed. */
const SCRUB_DEPTH = 8;

/** `value` with every string scrubbed of secret variables' values and URL user-info (redactSecrets). */
function scrubbed(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (value === null || typeof value !== 'object' || depth >= SCRUB_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => scrubbed(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = scrubbed(item, depth + 1);
  return out;
}

/**
 * The `err` field of a line: pino's error serializer, then every string in it scrubbed (P496). A client library's
 * error repeats the URL it called (viem's "URL: …", fetch's cause), and an RPC or explorer URL may carry an API key
 * in its path, so each failed readiness check or poll wrote the key to the log. The redaction paths cannot reach
 * text inside a message; errors are rare on a healthy service, so the scrub costs nothing per request.
 */
function scrubbedError(error: Error): pino.SerializedError {
  // The scrub maps strings to strings and keeps every member, so the shape pino's serializer gave is kept.
  return scrubbed(pino.stdSerializers.err(error), 0) as pino.SerializedError;
}

/** Fastify `logger` option (pino) with the redaction list and the service name on every line. */
export function loggerOptions(settings: LoggerSettings) {
  return {
    level: settings.level,
    base: { service: settings.service, pid: process.pid },
    redact: { paths: [...REDACT_PATHS], censor: '[REDACTED]' },
    serializers: { err: scrubbedError },
    // P597: pino escapes only U+0000–U+001F; a witness's refusal or an upstream's error holding U+009B (CSI) or a
    // bidi override must not drive the terminal of whoever follows the log.
    hooks: { streamWrite: jsonWithHiddenEscaped },
    stream: settings.stream ?? bufferedStdout(settings.service),
  };
}

/**
 * The logger of the one line per request (request-log.ts): the same level, base fields and stream as the
 * service's, without the redaction list. That line holds only fields the service builds (method, URL,
 * status, time), none of which a redaction path names, and the 32 paths with wildcards cost about 28 µs a
 * line against 1.3 µs without (pino, one core; issue 14 item 1).
 */
export function requestLineLogger(options: ReturnType<typeof loggerOptions>): pino.Logger {
  return pino(
    { level: options.level, base: options.base, hooks: options.hooks },
    options.stream as pino.DestinationStream,
  );
}

type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type LogArgs = [unknown, ...unknown[]];

/**
 * A request's `request.log` that makes its pino child (the parent's bindings plus `reqId`) only when a
 * line is logged through it at an enabled level, or when asked for its own child or level. Fastify makes
 * the child for every request, and pino renders the child's bindings through the redaction paths there
 * (P139: ~0.02 ms a request on the main thread at elevated-10), while at info most requests log nothing
 * through it: their one line is request-log.ts's, on its own logger. A line logged through it is the
 * child's line, the same as before.
 */
export class RequestLogger {
  readonly #parent: pino.Logger;
  readonly #bindings: pino.Bindings;
  readonly #options: pino.ChildLoggerOptions;
  #child: pino.Logger | undefined;

  constructor(parent: pino.Logger, bindings: pino.Bindings, options: pino.ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  /** The pino child, made on first need (the parent's level may have changed since; pino reads it then). */
  get logger(): pino.Logger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options);
    return this.#child;
  }

  #log(level: LevelName, args: LogArgs): void {
    if (this.#child === undefined && !this.#parent.isLevelEnabled(level)) return;
    (this.logger[level] as (...a: LogArgs) => void)(...args);
  }

  get level(): string {
    return (this.#child ?? this.#parent).level;
  }
  set level(level: string) {
    this.logger.level = level;
  }
  isLevelEnabled(level: string): boolean {
    return (this.#child ?? this.#parent).isLevelEnabled(level);
  }
  bindings(): pino.Bindings {
    return this.logger.bindings();
  }
  child(bindings: pino.Bindings, options?: pino.ChildLoggerOptions): pino.Logger {
    return this.logger.child(bindings, options);
  }
  fatal(...args: LogArgs): void {
    this.#log('fatal', args);
  }
  error(...args: LogArgs): void {
    this.#log('error', args);
  }
  warn(...args: LogArgs): void {
    this.#log('warn', args);
  }
  info(...args: LogArgs): void {
    this.#log('info', args);
  }
  debug(...args: LogArgs): void {
    this.#log('debug', args);
  }
  trace(...args: LogArgs): void {
    this.#log('trace', args);
  }
  silent(): void {}
}

/**
 * Fastify's `childLoggerFactory`: a RequestLogger when the parent is pino's (it can say which levels are
 * on) and the route sets no level of its own, else the parent's own child as Fastify's default makes it.
 */
export function requestChildLogger(
  logger: { child(bindings: pino.Bindings, options?: pino.ChildLoggerOptions): unknown },
  bindings: pino.Bindings,
  options: pino.ChildLoggerOptions,
): unknown {
  const parent = logger as Partial<pino.Logger>;
  // A route's own log level is the child's, not the parent's: the parent could not say what it logs.
  if (typeof parent.isLevelEnabled !== 'function' || options.level !== undefined) {
    return logger.child(bindings, options);
  }
  return new RequestLogger(parent as pino.Logger, bindings, options);
}
