// Process entry for every service: build, listen, log the address, drain on SIGTERM/SIGINT, exit 0;
// SIGUSR2 writes a diagnostic report and changes nothing else; a ConfigError is printed without a stack and exits 1;
// a failed listen is logged as such and exits 1. docs/architecture.md §3 (close-with-grace, env-schema).
import { flushCompileCache } from 'node:module';
import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import { compileCacheState } from './compile-cache.ts';
import { ConfigError } from './config.ts';
import { installDiagnosticReport } from './diagnostic-report.ts';
import { logLastLine } from './log-settle.ts';
import { redactSecrets } from './secret-values.ts';

/** Prints a configuration error the way an operator wants to read it, then exits 1. */
export function exitOnConfigError(error: unknown, service: string): void {
  if (error instanceof ConfigError) {
    process.stderr.write(`${service}: ${redactSecrets(error.message)}\n`);
    process.exit(1);
  }
}

/**
 * Any other failure to start: printed with its stack (operators need it), credentials scrubbed, exit 1.
 * A library's error can quote the value it choked on (a key, a connection string).
 */
function exitOnStartError(error: unknown, service: string): never {
  const text = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  process.stderr.write(`${service}: failed to start: ${redactSecrets(text)}\n`);
  process.exit(1);
}

/** Whether `app.close()` finished within `timeoutMs`; the timer starts first, as the close may block. */
async function drainWithin(app: FastifyInstance, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([app.close().then(() => true as const), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Longest wait for the last log line to reach standard output before the process exits. */
const LAST_LINE_WAIT_MS = 1000;

/**
 * A port already taken (or an address not this host's): said as a failed start, then exit 1. Left to
 * close-with-grace, the rejection read as a fatal error followed by "shutdown complete", as if the service
 * had served and drained (P121). The app is closed first: its pools, stores and connections exist already.
 */
async function exitOnListenError(app: FastifyInstance, error: unknown): Promise<never> {
  const { host, port, shutdownTimeoutMs } = app.serviceInfo;
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? 'error';
  try {
    await drainWithin(app, shutdownTimeoutMs);
  } catch (closeError) {
    app.log.error({ err: closeError }, 'closing after the failed listen failed too');
  }
  const line = `listen failed on ${host}:${port} (${code}): exiting`;
  await logLastLine(app.log, line, LAST_LINE_WAIT_MS, 'error', { err: error });
  process.exit(1);
}

/**
 * Builds the service, listens on its HOST:PORT and installs graceful shutdown: on SIGTERM/SIGINT the
 * server stops accepting connections, in-flight requests finish, new requests on open connections get
 * 503 + Retry-After, onClose hooks run (worker pools, Redis, databases), then the process exits 0.
 * A drain longer than SHUTDOWN_TIMEOUT_MS logs that as its last line and exits 1.
 */
export async function runService(
  build: () => Promise<FastifyInstance> | FastifyInstance,
  options: { readonly name?: string } = {},
): Promise<FastifyInstance> {
  let app: FastifyInstance;
  try {
    app = await build();
  } catch (error) {
    exitOnConfigError(error, options.name ?? 'service');
    exitOnStartError(error, options.name ?? 'service');
  }
  const info = app.serviceInfo;
  // The drain's time limit is ours, not close-with-grace's: its own limit logs and exits in one step, with no
  // wait for that last line (log-settle.ts).
  const grace = closeWithGrace(
    {
      delay: false,
      logger: { error: (msg: unknown) => app.log.error(msg) },
      skip: ['SIGUSR2'],
    },
    async ({ signal, err }) => {
      if (err) app.log.error({ err }, 'fatal error: closing');
      else app.log.info({ signal }, 'shutting down: draining in-flight requests');
      if (!(await drainWithin(app, info.shutdownTimeoutMs))) {
        await logLastLine(
          app.log,
          `drain exceeded SHUTDOWN_TIMEOUT_MS (${info.shutdownTimeoutMs} ms): exiting with requests in flight`,
          LAST_LINE_WAIT_MS,
          'error',
        );
        process.exit(1);
      }
      await logLastLine(app.log, 'shutdown complete', LAST_LINE_WAIT_MS);
    },
  );
  const removeReport = installDiagnosticReport(info.diagnosticReportDir, {
    written: (file) => app.log.info({ file }, 'diagnostic report written (SIGUSR2)'),
    failed: (err) => app.log.error({ err }, 'diagnostic report failed (SIGUSR2)'),
  });
  app.addHook('onClose', async () => {
    grace.uninstall();
    removeReport();
  });
  let address: string;
  try {
    address = await app.listen({ port: info.port, host: info.host });
  } catch (error) {
    return exitOnListenError(app, error);
  }
  // With NODE_COMPILE_CACHE set, write the cache now, not at exit: a service killed -9 or OOM-killed would
  // otherwise never write it, and its restart would strip the TypeScript types again (tens of MB of RSS).
  flushCompileCache();
  app.log.info(
    { address, service: info.name, version: info.version, profile: app.protocolProfile.name },
    `${info.name} listening on ${address}`,
  );
  // Once, and only when the entry turned the cache on (startCompileCache): off costs every start and
  // every new thread its modules' stripping and compiling again, not correctness (P119).
  const cache = compileCacheState();
  if (cache?.on) app.log.debug({ directory: cache.directory }, 'compile cache on');
  else if (cache)
    app.log.info(
      { directory: cache.directory, reason: cache.reason },
      'compile cache off: every start and new thread compiles its modules again',
    );
  return app;
}
