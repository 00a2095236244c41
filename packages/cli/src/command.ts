// The shape of one `proto` sub-command: its arguments, options (with their help lines) and action.
// cli.ts turns the table into a commander program, which parses and writes the help (P40).
// A new command adds a module and one line in commands/index.ts.
import type { CliIo } from './io.ts';

export type OptionValues = Record<string, string | boolean | readonly string[] | undefined>;

export interface ParsedCommandLine {
  /** Option values keyed by long name without dashes (`log-key`); repeatable options are arrays. */
  readonly values: OptionValues;
  readonly positionals: readonly string[];
}

export interface CommandOption {
  /** commander flags: `--tier <TIER>` takes a value, `--v1` is a switch. */
  readonly flags: string;
  readonly description: string;
  /** May be given more than once; the values arrive as an array in order. */
  readonly repeatable?: boolean;
}

export interface Command {
  readonly name: string;
  /** One line for `proto --help`. */
  readonly summary: string;
  /** What the usage line shows after `proto <name>`, e.g. `FILE|-` or `verify FILE|- --key B64`. */
  readonly usage: readonly string[];
  /** Paragraphs between the usage line and the options. */
  readonly description: string;
  /** `--help`/`-h` is added for every command. */
  readonly options: readonly CommandOption[];
  /** After the options: what the command prints, examples, exit codes. */
  readonly epilog?: string;
  /** Allowed number of positional arguments. */
  readonly positionals: { readonly min: number; readonly max: number };
  /** Returns the exit code; throws CliError for unusable input (exit 2). */
  readonly run: (args: ParsedCommandLine, io: CliIo) => Promise<number> | number;
}
