// The `proto` command run inside the test's own process (no spawn): what it printed and its exit code.
// For tests that start services in-process; end-to-end tests of the real process use @proto/testing runProcess.
import { runCli } from './cli.ts';
import type { CliIo } from './io.ts';

export interface InProcessRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `proto …args`; `terminal` makes both stdout and stderr terminals (readable output, progress lines). */
export async function runInProcess(
  args: readonly string[],
  options: { readonly terminal?: boolean; readonly stdin?: string } = {},
): Promise<InProcessRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    readStdin: async () => options.stdin ?? '',
    isTerminal: options.terminal === true,
    stderrIsTerminal: options.terminal === true,
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}
