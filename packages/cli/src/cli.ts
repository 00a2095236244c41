// Dispatches `proto <command> [<sub-command>] [options]` with commander (P40, P106): generated help for the program and for every
// command, --version, unknown commands and options refused. Exit codes (P23): 0 ok/verified, 1 not verified,
// 2 bad usage or unusable input, 3 internal error.
import { CommanderError, Help, type HelpConfiguration, Option, Command as Program } from 'commander';
import packageJson from '../package.json' with { type: 'json' };
import type { ActionCommand, Command, OptionValues } from './command.ts';
import { COMMANDS } from './commands/index.ts';
import { CliError, type CliIo, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE } from './io.ts';
import { terminalText } from './render-verdict.ts';

const EXIT_CODES =
  'Exit codes: 0 success (verified), 1 not verified, 2 bad usage or unusable input, 3 internal error.';

/**
 * Descriptions written with their own line breaks (tables, numbered lists) are kept as written; one-line
 * option descriptions are wrapped. The command list shows names only: each command's usage is its own help.
 */
const HELP_LAYOUT: HelpConfiguration = {
  helpWidth: 100,
  boxWrap(this: Help, text: string, width: number): string {
    return text.includes('\n') ? text : Help.prototype.boxWrap.call(this, text, width);
  },
  subcommandTerm: (command) => command.name(),
};

/** The whole program; built per run so that a test's io and state never leak into the next run. */
function buildProgram(io: CliIo, done: (code: number) => void): Program {
  const program = new Program('proto')
    .usage('<command> [options]')
    .description('Verify and build Signed Bundles (V1 and V2).')
    .version(packageJson.version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show this help')
    .helpCommand('help [command]', 'show the help of a command')
    .addHelpText('after', `\nRun \`proto <command> --help\` for the options of a command.\n\n${EXIT_CODES}\n`)
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .configureHelp(HELP_LAYOUT)
    .showHelpAfterError()
    .exitOverride();
  for (const command of COMMANDS.values()) program.addCommand(commandProgram(command, [], io, done));
  return program;
}

/** One command of the table, with its sub-commands built the same way under it. */
function commandProgram(
  command: Command,
  path: readonly string[],
  io: CliIo,
  done: (code: number) => void,
): Program {
  const sub = new Program(command.name)
    .summary(command.summary)
    .description(command.description)
    .helpOption('-h, --help', 'show this help')
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .configureHelp(HELP_LAYOUT)
    .showHelpAfterError()
    .exitOverride();
  if (command.epilog !== undefined) sub.addHelpText('after', `\n${command.epilog}`);
  const fullPath = [...path, command.name];
  if (command.subcommands !== undefined) {
    // No action: commander answers the group alone or an unknown word with exit 1 and this help (mapped to 2).
    sub.usage('<command> [options]').helpCommand('help [command]', 'show the help of a command');
    for (const child of command.subcommands) sub.addCommand(commandProgram(child, fullPath, io, done));
    return sub;
  }
  const [first = '', ...more] = command.usage;
  const indent = ' '.repeat(`Usage: proto ${fullPath.join(' ')} `.length);
  const continuation = more.map((line) => `\n${indent}${line}`);
  sub
    .usage(`${first}${continuation.join('')}`)
    .argument('[arguments...]')
    .allowExcessArguments(true);
  const declared: Option[] = [];
  for (const spec of command.options) {
    const option = new Option(spec.flags, spec.description);
    if (spec.repeatable)
      option.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
    declared.push(option);
    sub.addOption(option);
  }
  // Messages keep the top-level name (`proto log: …`) as they read before sub-commands existed.
  const label = fullPath[0] ?? command.name;
  sub.action(async (positionals: string[], _options: unknown, self: Program) => {
    const parsed = self.opts();
    const values: OptionValues = {};
    for (const option of declared)
      values[option.long?.slice(2) ?? option.name()] = parsed[option.attributeName()];
    done(await runCommand(command, label, positionals, values, self, io));
  });
  return sub;
}

async function runCommand(
  command: ActionCommand,
  label: string,
  positionals: readonly string[],
  values: OptionValues,
  self: Program,
  io: CliIo,
): Promise<number> {
  const { min, max } = command.positionals;
  if (positionals.length < min || positionals.length > max) {
    const expected = min === max ? `${min}` : `${min} to ${max}`;
    io.stderr(
      `proto ${label}: expected ${expected} argument${max === 1 ? '' : 's'}, got ${positionals.length}\n\n${self.helpInformation()}`,
    );
    return EXIT_USAGE;
  }
  try {
    return await command.run({ values, positionals }, io);
  } catch (cause) {
    if (cause instanceof CliError) {
      // P321: a message may quote the input (V8's JSON.parse quotes the text around a bad token): written out, as the
      // report is (P315), so the input's escape sequences never reach the terminal.
      io.stderr(
        `proto ${label}: ${terminalText(cause.message)}\n${cause.showUsage ? `\n${self.helpInformation()}` : ''}`,
      );
      return EXIT_USAGE;
    }
    // The message only: a stack trace is noise to a user and can show local paths.
    const detail = cause instanceof Error ? cause.message : String(cause);
    io.stderr(`proto ${label}: internal error: ${terminalText(detail)}\n`);
    return EXIT_INTERNAL;
  }
}

/** The program's help text (`proto --help`). */
export function mainHelp(): string {
  let text = '';
  const program = buildProgram(
    {
      stdout: (t) => {
        text += t;
      },
      stderr: () => {},
      readStdin: async () => '',
    },
    () => {},
  );
  program.outputHelp();
  return text;
}

/** Runs one command line (without `node main.ts`) and returns the exit code. Never throws. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  if (argv.length === 0) {
    io.stderr(mainHelp());
    return EXIT_USAGE;
  }
  let code: number | undefined;
  const program = buildProgram(io, (result) => {
    code = result;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (cause) {
    if (!(cause instanceof CommanderError)) {
      io.stderr(
        `proto: internal error: ${terminalText(cause instanceof Error ? cause.message : String(cause))}\n`,
      );
      return EXIT_INTERNAL;
    }
    // Help and --version end the parse with exit code 0; every other refusal is bad usage.
    return cause.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
  }
  return code ?? EXIT_USAGE;
}
