// pino logger settings: level from LOG_LEVEL, a request id per request (echoed as X-Request-Id), and
// redaction of credentials and secret keys. docs/architecture.md §3 (pino logs with redaction), DECISIONS D22.
import { randomUUID } from 'node:crypto';
import { fsyncSync, writeSync } from 'node:fs';
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

/** Log bytes held before a write (about twenty request lines) and the longest a held line waits (P139). */
export const LOG_BATCH_BYTES = 4096;
export const LOG_BATCH_MS = 100;

/** What `holdLines` needs of a sonic-boom stream (pino.destination). */
export interface HeldStream {
  write(data: string): boolean;
  flush(): void;
  on(event: 'write', listener: (bytes: number) => void): unknown;
}

/**
 * Holds a stream's lines until `minLength` bytes are waiting (sonic-boom writes then) or `ms` after the
 * first of them, whichever comes first, so a busy service hands the kernel one write for many lines; a
 * quiet one writes each line within `ms`, and no timer runs while nothing waits (sonic-boom's own
 * `periodicFlush` writes an empty string on every tick). A flush while a write is in flight does nothing,
 * so each finished write arms the timer again while bytes are still held; a stream that stopped writing
 * (EPIPE: pino then drops every line) arms nothing more. pino's exit handler flushes what is held
 * synchronously (`flushSync`, which `flushSyncOrDrop` makes give up on a reader that has gone).
 */
export function holdLines<S extends HeldStream>(stream: S, ms: number): S {
  const write = stream.write.bind(stream);
  let held = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = (): void => {
    timer = undefined;
    if (held > 0) stream.flush();
  };
  const arm = (): void => {
    if (timer !== undefined) return;
    timer = setTimeout(flush, ms);
    timer.unref();
  };
  stream.on('write', (bytes) => {
    held -= bytes;
    if (held > 0) arm();
  });
  // An own property: pino's EPIPE handler replaces it with a no-op on the instance, as it would the prototype's.
  stream.write = (data: string): boolean => {
    held += Buffer.byteLength(data);
    const below = write(data);
    arm();
    return below;
  };
  return stream;
}

/**
 * What sonic-boom 4 (utf8 mode) still holds: `_writingBuf` is the chunk of the last write (in flight while
 * `_writing`, else one that failed), `_bufs` the chunks after it, `_len` their bytes. Its own `flushSync`
 * writes these; `flushSyncOrDrop` reads the same fields.
 */
interface SonicBoomHeld {
  destroyed: boolean;
  fd: number;
  _writing: boolean;
  _writingBuf: string | Buffer;
  _bufs: (string | Buffer)[];
  _len: number;
}

function holdsLikeSonicBoom4(stream: object): stream is SonicBoomHeld {
  return (
    'destroyed' in stream &&
    typeof stream.destroyed === 'boolean' &&
    'fd' in stream &&
    typeof stream.fd === 'number' &&
    '_writing' in stream &&
    typeof stream._writing === 'boolean' &&
    '_writingBuf' in stream &&
    (typeof stream._writingBuf === 'string' || Buffer.isBuffer(stream._writingBuf)) &&
    '_bufs' in stream &&
    Array.isArray(stream._bufs) &&
    '_len' in stream &&
    typeof stream._len === 'number'
  );
}

/** sonic-boom's wait before it tries a write that met a full non-blocking pipe (EAGAIN) again. */
const BUSY_WRITE_WAIT_MS = 100;
const sleepCell = new Int32Array(new SharedArrayBuffer(4));

/**
 * Replaces the stream's `flushSync` (pino calls it from its exit handler and after every fatal line) with
 * one that gives up on a reader that has gone. sonic-boom 4's own retries every failed write each 100 ms
 * and, unless the error is EAGAIN, forever: a process whose standard output had lost its reader (EPIPE)
 * before pino's asynchronous path saw it hung in process.exit, or in `log.fatal` (P145). Here a full pipe
 * (EAGAIN, EBUSY) is still waited for, as its reader is there, and any other failure drops what is held:
 * those bytes can never be written, and the exit code is the process's, not the log's. A process that goes
 * on (after a fatal line) meets the same error on its next line's asynchronous write, and pino stops logging
 * there. A stream of another shape keeps its own flush.
 */
export function flushSyncOrDrop<S extends { flushSync(): void }>(stream: S): S {
  if (!holdsLikeSonicBoom4(stream)) return stream;
  const held = stream;
  stream.flushSync = (): void => {
    // sonic-boom's throws here; a destroyed stream holds nothing to write, and the exit must not fail.
    if (held.destroyed) return;
    // A write in flight stays the asynchronous path's, as in sonic-boom's flushSync.
    if (!held._writing && held._writingBuf.length > 0) {
      held._bufs.unshift(held._writingBuf);
      held._writingBuf = '';
    }
    for (let next = held._bufs[0]; next !== undefined; next = held._bufs[0]) {
      let chunk = Buffer.from(next);
      while (chunk.length > 0) {
        try {
          const written = writeSync(held.fd, chunk);
          chunk = chunk.subarray(written);
          held._len = Math.max(held._len - written, 0);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code !== 'EAGAIN' && code !== 'EBUSY') {
            held._bufs = [];
            held._len = held._writing ? Buffer.byteLength(held._writingBuf) : 0;
            return;
          }
          Atomics.wait(sleepCell, 0, 0, BUSY_WRITE_WAIT_MS);
        }
      }
      held._bufs.shift();
    }
    try {
      fsyncSync(held.fd);
    } catch {
      // A pipe or a terminal has nothing to sync (EINVAL), as sonic-boom's flushSync also ignores.
    }
  };
  return stream;
}

/**
 * Standard output written asynchronously: a line is handed to the kernel off the event loop, and lines
 * logged while a write is in flight go out together. The default synchronous stdout was 3–4 % of the
 * verification service's main thread under load (`writeString`, issue 14 item 1); one asynchronous write a
 * line still cost the main thread ~0.06 ms a request at elevated-10 (the write's hand-off to libuv's pool,
 * P139), so lines are held up to LOG_BATCH_BYTES or LOG_BATCH_MS (`holdLines`). What is held at exit is
 * written synchronously, or dropped once the reader has gone (`flushSyncOrDrop`, P145).
 */
function asyncStdout() {
  const stream = pino.destination({ dest: 1, sync: false, minLength: LOG_BATCH_BYTES });
  return holdLines(flushSyncOrDrop(stream), LOG_BATCH_MS);
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
