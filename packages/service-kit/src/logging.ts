// pino logger settings: level from LOG_LEVEL, a request id per request (echoed as X-Request-Id), and
// redaction of credentials and secret keys. docs/architecture.md §3 (pino logs with redaction), DECISIONS D22.
import { randomUUID } from 'node:crypto';
import { fstatSync, fsyncSync, writeSync } from 'node:fs';
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

/** Log bytes held before a write (about twenty request lines) and the longest a held line waits (P139). */
export const LOG_BATCH_BYTES = 4096;
export const LOG_BATCH_MS = 100;

/**
 * The event `flushSyncOrDrop`'s synchronous flush emits with the bytes it took off the stream (written or
 * dropped): sonic-boom's own write events come from its asynchronous path only.
 */
export const FLUSHED_SYNC_EVENT = 'flushedSync';

/** What `holdLines` needs of a sonic-boom stream (pino.destination). */
export interface HeldStream {
  write(data: string): boolean;
  flush(): void;
  on(event: 'write' | typeof FLUSHED_SYNC_EVENT, listener: (bytes: number) => void): unknown;
}

/**
 * Holds a stream's lines until `minLength` bytes are waiting (sonic-boom writes then) or `ms` after the
 * first of them, whichever comes first, so a busy service hands the kernel one write for many lines; a
 * quiet one writes each line within `ms`, and no timer runs while nothing waits (sonic-boom's own
 * `periodicFlush` writes an empty string on every tick). A flush while a write is in flight does nothing,
 * so each finished write arms the timer again while bytes are still held; a stream that stopped writing
 * (EPIPE: pino then drops every line) arms nothing more. pino's exit handler and every fatal line flush what
 * is held synchronously (`flushSync`, which `flushSyncOrDrop` bounds and makes report what it took, P147):
 * the count follows both paths, so it is 0 again once everything is written or dropped.
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
  const released = (bytes: number): void => {
    held -= bytes;
    if (held > 0) arm();
  };
  stream.on('write', released);
  // Without this, a synchronous flush left `held` above 0 for good and the timer wrote '' every `ms` (P147).
  // It reports exactly what left sonic-boom's count, never a write still in flight: that one's 'write'
  // event still comes, so no line logged after the flush is forgotten.
  stream.on(FLUSHED_SYNC_EVENT, released);
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
 * writes these; `flushSyncOrDrop` reads the same fields, and `retryEAGAIN`, which sonic-boom asks before it
 * parks a write that met a full pipe on a timer.
 */
interface SonicBoomHeld {
  destroyed: boolean;
  fd: number;
  _writing: boolean;
  _writingBuf: string | Buffer;
  _bufs: (string | Buffer)[];
  _len: number;
  retryEAGAIN: (error: Error, writing: number, remaining: number) => boolean;
  emit(event: typeof FLUSHED_SYNC_EVENT, bytes: number): boolean;
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
    typeof stream._len === 'number' &&
    'retryEAGAIN' in stream &&
    typeof stream.retryEAGAIN === 'function' &&
    'emit' in stream &&
    typeof stream.emit === 'function'
  );
}

/** sonic-boom's wait before it tries a write that met a full non-blocking pipe (EAGAIN) again. */
const BUSY_WRITE_WAIT_MS = 100;
const sleepCell = new Int32Array(new SharedArrayBuffer(4));

/**
 * The longest one synchronous flush waits on a full pipe, from its first EAGAIN (P147). A reader that is
 * there but behind (a log shipper busy with its own output, a container runtime's copier descheduled on a
 * loaded node) only has to take one pipe's worth (64 KiB) for the flush to go on; two seconds is twenty of
 * sonic-boom's 100 ms retries, far past a scheduling hiccup, and a reader that takes nothing for that long
 * is stuck as far as an exit can tell. It comes on top of SIGTERM's drain (SHUTDOWN_TIMEOUT_MS, 10 s by
 * default) and the last line's wait (1 s, run.ts): 13 s, inside docker-compose's 15 s stop_grace_period
 * and Kubernetes' 30 s grace (after its 5 s preStop), so the exit code is the service's, not a SIGKILL's.
 */
export const FLUSH_SYNC_BUDGET_MS = 2_000;

/** Drops what the stream holds, but a write in flight (the asynchronous path's: its event still comes). */
function dropHeld(held: SonicBoomHeld): void {
  held._bufs = [];
  held._len = held._writing ? Buffer.byteLength(held._writingBuf) : 0;
}

/**
 * Writes what the stream holds with `writeSync`, waiting on a full pipe (EAGAIN, EBUSY) until
 * FLUSH_SYNC_BUDGET_MS after the first such error, then drops it; any other failure drops it at once.
 */
function writeOrDrop(held: SonicBoomHeld): void {
  let deadline: number | undefined;
  for (let next = held._bufs[0]; next !== undefined; next = held._bufs[0]) {
    let chunk = Buffer.from(next);
    while (chunk.length > 0) {
      try {
        const written = writeSync(held.fd, chunk);
        chunk = chunk.subarray(written);
        held._len = Math.max(held._len - written, 0);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        const now = performance.now();
        deadline ??= now + FLUSH_SYNC_BUDGET_MS;
        if ((code !== 'EAGAIN' && code !== 'EBUSY') || now >= deadline) {
          dropHeld(held);
          return;
        }
        // A sleep of the thread, not a spin: the core stays the other processes'.
        Atomics.wait(sleepCell, 0, 0, Math.min(BUSY_WRITE_WAIT_MS, deadline - now));
      }
    }
    held._bufs.shift();
  }
  try {
    fsyncSync(held.fd);
  } catch {
    // A pipe or a terminal has nothing to sync (EINVAL), as sonic-boom's flushSync also ignores.
  }
}

/**
 * Whether the stream's write in flight is parked: it met a full pipe and waits on sonic-boom's 100 ms timer
 * to be tried again, so nothing of it is in libuv's pool. sonic-boom asks `retryEAGAIN` just before it sets
 * that timer; the timer set here for the same delay, set first, fires first (Node runs timers of one delay
 * in the order they were set), so while this says parked the retry has not started. In the moment between
 * the two timers it says not parked, and the write is left to the asynchronous path, as before.
 */
function parkedWrites(held: SonicBoomHeld): () => boolean {
  let parked = false;
  const retry = held.retryEAGAIN;
  held.retryEAGAIN = (error, writing, remaining) => {
    const again = retry.call(held, error, writing, remaining);
    if (again) {
      parked = true;
      setTimeout(() => {
        parked = false;
      }, BUSY_WRITE_WAIT_MS).unref();
    }
    return again;
  };
  return () => parked;
}

/**
 * Replaces the stream's `flushSync` (pino calls it from its exit handler and after every fatal line) with
 * one that gives up on a reader that has gone (P145) or that does not read (P147). sonic-boom 4's own
 * retries every failed write each 100 ms and, unless the error is EAGAIN, forever: a process whose standard
 * output had lost its reader (EPIPE) before pino's asynchronous path saw it hung in process.exit, or in
 * `log.fatal` (P145). Here a full pipe (EAGAIN, EBUSY) is waited for up to FLUSH_SYNC_BUDGET_MS, as its
 * reader may only be behind, and then, or at once on any other failure, what is held is dropped: those
 * bytes can never be written, or not in time, and the exit code is the process's, not the log's. A process
 * that goes on (after a fatal line) meets the same error on its next line's asynchronous write, and pino
 * stops logging there (EPIPE) or sonic-boom retries it on its timer (EAGAIN). What the flush wrote or
 * dropped is reported with FLUSHED_SYNC_EVENT (`holdLines` counts it). A stream of another shape keeps
 * its own flush.
 */
export function flushSyncOrDrop<S extends { flushSync(): void }>(stream: S): S {
  if (!holdsLikeSonicBoom4(stream)) return stream;
  const held = stream;
  const parked = parkedWrites(held);
  stream.flushSync = (): void => {
    // sonic-boom's throws here; a destroyed stream holds nothing to write, and the exit must not fail.
    if (held.destroyed) return;
    const before = held._len;
    // A write in libuv's pool stays the asynchronous path's, as in sonic-boom's flushSync. One parked on its
    // timer is taken here, first, so it is neither lost at exit nor written after the lines behind it: the
    // timer's try then writes the empty string left in its place and sonic-boom carries on from there.
    if ((!held._writing || parked()) && held._writingBuf.length > 0) {
      held._bufs.unshift(held._writingBuf);
      held._writingBuf = '';
    }
    writeOrDrop(held);
    if (before > held._len) held.emit(FLUSHED_SYNC_EVENT, before - held._len);
  };
  return stream;
}

/**
 * Makes standard output non-blocking when it is a pipe or a socket (P147). Node leaves a pipe it inherits
 * blocking until `process.stdout` is first read, which opens it as a libuv stream and sets O_NONBLOCK (as
 * any `console.log` does). Blocking, a reader that never reads holds sonic-boom's write in libuv's pool,
 * and process.exit waits for that thread for ever, whatever the synchronous flush does; non-blocking, that
 * write meets EAGAIN and sonic-boom tries it again on a timer, and the synchronous flush's budget applies.
 * The flag is on the pipe's open file, shared with any other process writing to it; Node puts the flags it
 * found back at exit. A file never fills and is left as it is; so is a terminal (blocking, not bounded).
 */
function nonBlockingStdout(): void {
  let kind: { isFIFO(): boolean; isSocket(): boolean };
  try {
    kind = fstatSync(1);
  } catch {
    return; // No standard output: pino's writes fail (EBADF) and are dropped.
  }
  // Reading the getter is what opens it; the stream itself is not written through here.
  if (kind.isFIFO() || kind.isSocket()) void process.stdout;
}

/**
 * Standard output written asynchronously: a line is handed to the kernel off the event loop, and lines
 * logged while a write is in flight go out together. The default synchronous stdout was 3–4 % of the
 * verification service's main thread under load (`writeString`, issue 14 item 1); one asynchronous write a
 * line still cost the main thread ~0.06 ms a request at elevated-10 (the write's hand-off to libuv's pool,
 * P139), so lines are held up to LOG_BATCH_BYTES or LOG_BATCH_MS (`holdLines`). What is held at exit is
 * written synchronously, or dropped once the reader has gone (`flushSyncOrDrop`, P145) or has not read for
 * FLUSH_SYNC_BUDGET_MS (P147, on a non-blocking standard output: `nonBlockingStdout`).
 */
function asyncStdout() {
  nonBlockingStdout();
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
