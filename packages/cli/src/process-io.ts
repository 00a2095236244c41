// The real process behind the CLI's CliIo: stdout, stderr, stdin, whether stdout is a terminal, EPIPE handling.
// Shared by main.ts (Node) and sea-main.ts (the single-file executable); issue 13 item 7.
import { type CliIo, decodeUtf8Strict, readStreamBounded } from './io.ts';

/** Installs the EPIPE handler and returns the process's CliIo. */
export function processIo(): CliIo {
  // A closed pipe (`proto build | head`) is not an error worth a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  return {
    stdout: (text) => {
      process.stdout.write(text);
    },
    stderr: (text) => {
      process.stderr.write(text);
    },
    // P528: at most MAX_INPUT_BYTES, as a file.
    readStdin: async () => decodeUtf8Strict(await readStreamBounded(process.stdin, '<stdin>'), '<stdin>'),
    isTerminal: process.stdout.isTTY === true,
    stderrIsTerminal: process.stderr.isTTY === true,
  };
}
