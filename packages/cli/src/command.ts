// The shape of one `proto` command: its arguments, options (with their help lines) and action, or the
// sub-commands it groups (`log prove`, `log verify`). cli.ts turns the table into a commander program, which
// parses and writes the help (P40, P106). A new command adds a module and one line in commands/index.ts.
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

interface CommandHelp {
  readonly name: string;
  /** One line in the command list of the parent's help. */
  readonly summary: string;
  /** Paragraphs between the usage line and the options. */
  readonly description: string;
  /** After the options: what the command prints, examples, exit codes. */
  readonly epilog?: string;
}

/** A command that runs: `proto hash`, or a sub-command such as `proto log prove`. */
export interface ActionCommand extends CommandHelp {
  /** What the usage line shows after the command's path, e.g. `FILE|-` or `FILE|- --key B64`. */
  readonly usage: readonly string[];
  /** `--help`/`-h` is added for every command. */
  readonly options: readonly CommandOption[];
  /** Allowed number of positional arguments. */
  readonly positionals: { readonly min: number; readonly max: number };
  /** Returns the exit code; throws CliError for unusable input (exit 2). */
  readonly run: (args: ParsedCommandLine, io: CliIo) => Promise<number> | number;
  readonly subcommands?: undefined;
}

/**
 * A command that only groups sub-commands (`proto log`): commander picks the sub-command, and the group alone
 * or with an unknown word is bad usage that lists them.
 */
export interface CommandGroup extends CommandHelp {
  readonly subcommands: readonly Command[];
}

export type Command = ActionCommand | CommandGroup;
