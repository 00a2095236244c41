// The log stream is written asynchronously (logging.ts). At exit pino flushes what is still in flight with
// sonic-boom's synchronous flush, and sonic-boom 4 retries a failed write there forever unless it is EAGAIN:
// a service whose log reader had gone away (EPIPE) never ended after SIGTERM. Waiting for the last line's
// write to finish or fail first lets pino see the EPIPE on the asynchronous path, where it stops logging.
import type { EventEmitter } from 'node:events';
import type { FastifyBaseLogger } from 'fastify';
import { type Logger, symbols } from 'pino';

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
  const logger = log as unknown as Logger;
  const stream = (logger as unknown as Record<symbol, unknown>)[symbols.streamSym] as
    | Partial<EventEmitter>
    | undefined;
  const waits =
    typeof logger.isLevelEnabled === 'function' &&
    logger.isLevelEnabled(level) &&
    typeof stream?.once === 'function' &&
    typeof stream.off === 'function';
  if (!waits) {
    log[level](fields, message);
    return Promise.resolve();
  }
  const events = stream as EventEmitter;
  const settled = new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      events.off('drain', done);
      events.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    events.once('drain', done);
    events.once('error', done);
  });
  log[level](fields, message);
  // The stream holds lines up to LOG_BATCH_MS (logging.ts, P139): write them now, not on its timer.
  if (typeof (events as Partial<{ flush(): void }>).flush === 'function')
    (events as unknown as { flush(): void }).flush();
  return settled;
}
