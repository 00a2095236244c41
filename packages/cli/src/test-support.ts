// The real `proto` process as the end-to-end tests of the CLI run it: the pinned Node on main.ts, stdin closed,
// killed after a limit so that a hang is a failed case and not a stuck suite, with the time it took.
import { fileURLToPath } from 'node:url';
import { type ProcessRun, runProcess } from '@proto/testing';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

/** Generous: a loaded machine may take many seconds to start the CLI. */
export const CLI_LIMIT_MS = 60_000;

export interface CliRun extends ProcessRun {
  readonly ms: number;
}

/** Runs `proto …args`; code null when it was still running after `limitMs` and was killed. */
export async function runCli(args: readonly string[], limitMs = CLI_LIMIT_MS): Promise<CliRun> {
  const started = Date.now();
  const run = await runProcess(process.execPath, [MAIN, ...args], { killAfterMs: limitMs });
  return { ...run, ms: Date.now() - started };
}
