// A service's main.ts booted as a child process, for the tests of what stops (or does not stop) its boot: its exit
// code and all it printed, stdout and stderr in the order they came (P481, P487, P521, P215, issue 12 row e).
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The least a booted service runs with and nothing inherited (a secret or DATABASE_URL of the test's would change
 * what boots): PATH, port 0 on loopback, info logs, a fresh DATA_DIR named after `label`.
 */
export function bootEnv(label: string): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
    DATA_DIR: mkdtempSync(join(tmpdir(), label)),
  };
}

export interface BootRun {
  /** Exit code; null when a signal ended it (the kill after `killAfterMs`, or `stopSignal`). */
  readonly code: number | null;
  /** stdout and stderr as they arrived. */
  readonly output: string;
  /** Whether `stopWhen` saw what it waited for (and the service was sent `stopSignal`). */
  readonly stopped: boolean;
}

/**
 * Runs `main` with exactly `env` until it exits: killed (SIGKILL) after `killAfterMs`, or sent `stopSignal` once
 * `stopWhen` holds for what it printed so far (e.g. the line that says it listens).
 */
export function bootMain(
  main: string,
  env: NodeJS.ProcessEnv,
  options: {
    readonly killAfterMs?: number;
    readonly stopWhen?: (output: string) => boolean;
    readonly stopSignal?: NodeJS.Signals;
  } = {},
): Promise<BootRun> {
  const child = spawn(process.execPath, [main], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let stopped = false;
  const read = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (!stopped && options.stopWhen?.(output) === true) {
      stopped = true;
      child.kill(options.stopSignal ?? 'SIGTERM');
    }
  };
  child.stdout.on('data', read);
  child.stderr.on('data', read);
  const timer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 30_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, stopped });
    }),
  );
}
