// The log stream is written asynchronously (logging.ts). The last line is written on that path before the
// process exits: pino's exit handler would otherwise write it with the stream's synchronous flush. That
// flush no longer hangs on a reader that has gone (flushSyncOrDrop, P145), but a line written here is one
// the exit need not write at all, and a failed write here (EPIPE) is where pino stops logging. The wait is
// bounded: whatever it leaves, the exit writes or drops.
import type { EventEmitter } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import { symbols } from 'pino';

/** The stream events the wait needs, and the flush of a stream that holds lines (logging.ts). */
type SettlingStream = Pick<EventEmitter, 'once' | 'off'> & { flush?: () => void };

/** Whether pino's destination can say when a write finished or failed. */
function isSettling(stream: unknown): stream is SettlingStream {
  return (
    typeof stream === 'object' &&
    stream !== null &&
    'once' in stream &&
    typeof stream.once === 'function' &&
    'off' in stream &&
    typeof stream.off === 'function'
  );
}

/** Whether `log` writes `level` (a logger that cannot say is taken as not: there is nothing to wait for). */
function writes(log: FastifyBaseLogger, level: 'info' | 'error'): boolean {
  return (
    'isLevelEnabled' in log && typeof log.isLevelEnabled === 'function' && log.isLevelEnabled(level) === true
  );
}

/**
 * Logs `message` (with `fields`, if any) at `level` as the process's last line and resolves once the stream
 * has written or failed what it holds, or after `timeoutMs`.
 */
export function logLastLine(
  log: FastifyBaseLogger,
  message: string,
  timeoutMs: number,
  level: 'info' | 'error' = 'info',
  fields: Record<string, unknown> = {},
): Promise<void> {
  // pino's destination of `log`, when it can say when a write finished or failed.
  const stream: unknown = Reflect.get(log, symbols.streamSym);
  if (!isSettling(stream) || !writes(log, level)) {
    log[level](fields, message);
    return Promise.resolve();
  }
  const settled = new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      stream.off('drain', done);
      stream.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    stream.once('drain', done);
    stream.once('error', done);
  });
  log[level](fields, message);
  // The stream holds lines up to LOG_BATCH_MS (logging.ts, P139): write them now, not on its timer.
  stream.flush?.();
  return settled;
}
