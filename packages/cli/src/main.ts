#!/usr/bin/env node
// Entry point of the `proto` command (the package's bin; `pnpm proto …` runs `node packages/cli/src/main.ts`).
// Prints only the command's output on stdout; diagnostics go to stderr; sets the exit code.
import { runCli } from './cli.ts';
import { processIo } from './process-io.ts';

process.exitCode = await runCli(process.argv.slice(2), processIo());
