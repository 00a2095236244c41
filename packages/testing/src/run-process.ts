// Running a program the way a user does, for end-to-end tests of command-line tools: with input on stdin,
// or on a pseudo-terminal (util-linux `script`) when the program behaves differently on a terminal.
import { spawn, spawnSync } from 'node:child_process';

export interface ProcessRun {
  /** Exit code; null when a signal ended the program. */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `file …args` with `input` on stdin (closed at once when empty); tests may run these concurrently. */
export function runProcess(
  file: string,
  args: readonly string[],
  options: {
    /** Bytes are written as they are (a test of input that is not UTF-8). */
    readonly input?: string | Uint8Array;
    readonly cwd?: string;
    /** The program's whole environment (default this process's). */
    readonly env?: NodeJS.ProcessEnv;
    /** Kills the program (SIGKILL, code null) still running after this long: a hang the test then sees. */
    readonly killAfterMs?: number;
  } = {},
): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, [...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
      cwd: options.cwd,
      ...(options.env === undefined ? {} : { env: options.env }),
    });
    const timer =
      options.killAfterMs === undefined
        ? undefined
        : setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({
        code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
    // A program may stop reading before the input ends (a size cap, P528): the pipe it closed is its answer, not
    // the test's fault, and the exit code and output still tell what it did.
    child.stdin.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') reject(error);
    });
    child.stdin.end(options.input ?? '');
  });
}

/** Runs `file …args` synchronously; with `terminal` on a pseudo-terminal (stdout and stderr then arrive mixed). */
export function runProcessSync(
  file: string,
  args: readonly string[],
  options: { readonly terminal?: boolean; readonly cwd?: string } = {},
): ProcessRun {
  const quoted = [file, ...args].map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(' ');
  const result = options.terminal
    ? spawnSync('script', ['-qec', quoted, '/dev/null'], { encoding: 'utf8', cwd: options.cwd })
    : spawnSync(file, [...args], { encoding: 'utf8', cwd: options.cwd });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}
