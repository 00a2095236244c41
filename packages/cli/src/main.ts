#!/usr/bin/env node
// Entry point of the `proto` command (`pnpm proto …` runs `node packages/cli/src/main.ts`).
// Prints only the command's output on stdout; diagnostics go to stderr; sets the exit code.
import { runCli } from './cli.ts';
import type { CliIo } from './io.ts';

// A closed pipe (`proto build | head`) is not an error worth a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

const io: CliIo = {
  stdout: (text) => {
    process.stdout.write(text);
  },
  stderr: (text) => {
    process.stderr.write(text);
  },
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin)
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    return Buffer.concat(chunks).toString('utf8');
  },
  isTerminal: process.stdout.isTTY === true,
};

process.exitCode = await runCli(process.argv.slice(2), io);
