// Entry point of the single-file executable (`pnpm build:cli`): the same CLI as main.ts, without top-level await
// because Node 24 runs a single executable's main script as CommonJS. Issue 13 item 7 (Node SEA).
import { runCli } from './cli.ts';
import { processIo } from './process-io.ts';

void runCli(process.argv.slice(2), processIo()).then((code) => {
  process.exitCode = code;
});
