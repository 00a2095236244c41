// The shape of one `proto` sub-command: its options (node:util parseArgs), help text and action.
// New commands (log, receipt, revocation verify…) add a module and one line in commands/index.ts.
import type { ParseArgsOptionsConfig } from 'node:util';
import type { CliIo } from './io.ts';

export type OptionValues = Record<string, string | boolean | undefined>;

export interface ParsedCommandLine {
  readonly values: OptionValues;
  readonly positionals: readonly string[];
}

export interface Command {
  readonly name: string;
  /** One line for `proto --help`. */
  readonly summary: string;
  /** Full help for `proto <command> --help` (usage line, arguments, options, exit codes). */
  readonly help: string;
  /** parseArgs options; `--help`/`-h` is added for every command. */
  readonly options: ParseArgsOptionsConfig;
  /** Allowed number of positional arguments. */
  readonly positionals: { readonly min: number; readonly max: number };
  /** Returns the exit code; throws CliError for unusable input (exit 2). */
  readonly run: (args: ParsedCommandLine, io: CliIo) => Promise<number> | number;
}
