// Dispatches `proto <command> [options]`: top-level help, option parsing with node:util parseArgs,
// exit codes (0 ok, 1 not verified, 2 bad usage or unusable input, 3 internal error).
import { parseArgs } from 'node:util';
import packageJson from '../package.json' with { type: 'json' };
import type { Command } from './command.ts';
import { COMMANDS } from './commands/index.ts';
import { CliError, type CliIo, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE } from './io.ts';

export function mainHelp(): string {
  const width = Math.max(...[...COMMANDS.keys()].map((name) => name.length));
  const lines = [...COMMANDS.values()].map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    'Usage: proto <command> [options]',
    '',
    'Verify and build Signed Bundles (V1 and V2).',
    '',
    'Commands:',
    ...lines,
    '',
    'Run `proto <command> --help` for the options of a command; `proto --version` prints the version.',
    '',
    'Exit codes: 0 success (verified), 1 not verified, 2 bad usage or unusable input, 3 internal error.',
    '',
  ].join('\n');
}

/** Runs one command line (without `node main.ts`) and returns the exit code. Never throws. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    io.stderr(mainHelp());
    return EXIT_USAGE;
  }
  if (name === '--version' || name === '-V') {
    io.stdout(`${packageJson.version}\n`);
    return EXIT_OK;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    const topic = rest[0];
    if (topic === undefined) {
      io.stdout(mainHelp());
      return EXIT_OK;
    }
    const command = COMMANDS.get(topic);
    if (!command) return unknownCommand(topic, io);
    io.stdout(command.help);
    return EXIT_OK;
  }
  const command = COMMANDS.get(name);
  if (!command) return name.startsWith('-') ? unknownOption(name, io) : unknownCommand(name, io);
  return runCommand(command, rest, io);
}

async function runCommand(command: Command, args: readonly string[], io: CliIo): Promise<number> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...args],
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (cause) {
    io.stderr(
      `proto ${command.name}: ${cause instanceof Error ? cause.message : String(cause)}\n\n${command.help}`,
    );
    return EXIT_USAGE;
  }
  if (parsed.values['help'] === true) {
    io.stdout(command.help);
    return EXIT_OK;
  }
  const { min, max } = command.positionals;
  if (parsed.positionals.length < min || parsed.positionals.length > max) {
    const expected = min === max ? `${min}` : `${min} to ${max}`;
    io.stderr(
      `proto ${command.name}: expected ${expected} argument${max === 1 ? '' : 's'}, got ${parsed.positionals.length}\n\n${command.help}`,
    );
    return EXIT_USAGE;
  }
  try {
    return await command.run(
      {
        values: parsed.values as Record<string, string | boolean | undefined>,
        positionals: parsed.positionals,
      },
      io,
    );
  } catch (cause) {
    if (cause instanceof CliError) {
      io.stderr(`proto ${command.name}: ${cause.message}\n${cause.showUsage ? `\n${command.help}` : ''}`);
      return EXIT_USAGE;
    }
    // The message only: a stack trace is noise to a user and can show local paths.
    const detail = cause instanceof Error ? cause.message : String(cause);
    io.stderr(`proto ${command.name}: internal error: ${detail}\n`);
    return EXIT_INTERNAL;
  }
}

function unknownCommand(name: string, io: CliIo): number {
  io.stderr(`proto: unknown command '${name}'\n\n${mainHelp()}`);
  return EXIT_USAGE;
}

function unknownOption(name: string, io: CliIo): number {
  io.stderr(`proto: unknown option '${name}'\n\n${mainHelp()}`);
  return EXIT_USAGE;
}
