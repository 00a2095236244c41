// The log stream is held in batches (line-writer.ts). The last line is written before the process exits, not
// left to the exit's synchronous flush: a line written here is one the exit need not write, and a failed write
// here (EPIPE) is where logging stops. The wait is bounded: whatever it leaves, the exit writes or drops (P147).
import type { FastifyBaseLogger } from 'fastify';
import { symbols } from 'pino';
import { DRAIN_EVENT, LineWriter } from './line-writer.ts';

/** Whether `log` writes `level` (a logger that cannot say is taken as not: there is nothing to wait for). */
function writes(log: FastifyBaseLogger, level: 'info' | 'error'): boolean {
  return (
    'isLevelEnabled' in log && typeof log.isLevelEnabled === 'function' && log.isLevelEnabled(level) === true
  );
}

/**
 * Logs `message` (with `fields`, if any) at `level` as the process's last line and resolves once the stream
 * holds nothing (written or dropped), or after `timeoutMs`: the writer writes it at once, and waits only on a
 * full pipe, for its next try.
 */
export function logLastLine(
  log: FastifyBaseLogger,
  message: string,
  timeoutMs: number,
  level: 'info' | 'error' = 'info',
  fields: Record<string, unknown> = {},
): Promise<void> {
  log[level](fields, message);
  // pino's destination of `log`: only the service's own writer holds lines.
  const stream: unknown = Reflect.get(log, symbols.streamSym);
  if (!(stream instanceof LineWriter) || !writes(log, level)) return Promise.resolve();
  // Not on its hold timer (LOG_BATCH_MS, P139): now.
  stream.flush();
  if (stream.pending === 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      stream.off(DRAIN_EVENT, done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    stream.on(DRAIN_EVENT, done);
  });
}
