// Test support: the anchor service as a child process (process.execPath running src/main.ts), its address,
// and its exit. Used by the crash-safety tests (D19: a crash between send and store loses nothing).
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../main.ts', import.meta.url));

export interface ServiceChild {
  readonly child: ChildProcess;
  readonly url: string;
  /** Resolves with the exit code and signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
  stop(): Promise<void>;
}

export async function startServiceChild(
  env: Record<string, string>,
  nodeFlags: readonly string[] = [],
): Promise<ServiceChild> {
  const child = spawn(process.execPath, [...nodeFlags, MAIN], {
    env: { PATH: process.env['PATH'] ?? '', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${out}`)), 20_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const match = /"address":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`service exited before listening:\n${out}`));
    });
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  return {
    child,
    url,
    exited,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
