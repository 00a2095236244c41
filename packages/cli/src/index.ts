// Programmatic API of the `proto` command, for embedding and tests: run a command line, list commands.
// The executable is main.ts; every command lives in commands/ and is registered in commands/index.ts.
export { mainHelp, runCli } from './cli.ts';
export type { Command, OptionValues, ParsedCommandLine } from './command.ts';
export { COMMANDS } from './commands/index.ts';
export { CliError, type CliIo, EXIT_INTERNAL, EXIT_NOT_VERIFIED, EXIT_OK, EXIT_USAGE } from './io.ts';
