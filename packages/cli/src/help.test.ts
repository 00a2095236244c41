// The help commander generates from the command table (P40, P106): every command and sub-command answers
// --help with its usage and the options it accepts; unknown options, commands and sub-commands are refused
// with exit 2 and the usage.
import { describe, expect, it } from 'vitest';
import type { ActionCommand, Command } from './command.ts';
import { COMMANDS } from './commands/index.ts';
import { runInProcess } from './run-in-process.ts';

const run = (args: readonly string[]) => runInProcess(args);

/** Every command that runs, by its path under `proto` (`log prove`), from the table itself. */
function actions(commands: Iterable<Command>, path: readonly string[] = []): [string, ActionCommand][] {
  return [...commands].flatMap((command): [string, ActionCommand][] =>
    command.subcommands === undefined
      ? [[[...path, command.name].join(' '), command]]
      : actions(command.subcommands, [...path, command.name]),
  );
}
const ACTIONS = new Map(actions(COMMANDS.values()));
const GROUPS = [...COMMANDS.values()].filter((command) => command.subcommands !== undefined);

describe('generated help', () => {
  it.each([...ACTIONS.keys()])('%s --help shows its usage and only the options it parses', async (path) => {
    const help = await run([...path.split(' '), '--help']);
    expect(help.code).toBe(0);
    expect(help.stderr).toBe('');
    expect(help.stdout).toMatch(new RegExp(`^Usage: proto ${path} `));
    const own = ACTIONS.get(path)?.options ?? [];
    for (const option of own) expect(help.stdout).toContain(option.flags);
    expect(help.stdout).toContain('-h, --help');
    // Nothing but its own options: no flag of a sibling sub-command shows up.
    const listed = help.stdout.match(/^ {2}--[a-z0-9-]+/gm) ?? [];
    expect(listed.map((flag) => flag.trim()).sort()).toEqual(
      own.map((option) => option.flags.split(' ')[0]).sort(),
    );
  });

  it.each(GROUPS.map((group) => group.name))(
    '%s alone or with an unknown sub-command exits 2 and lists its sub-commands',
    async (name) => {
      const names = GROUPS.find((group) => group.name === name)?.subcommands.map((sub) => sub.name) ?? [];
      expect(names.length).toBeGreaterThan(0);
      for (const args of [[name], [name, 'nonsense']]) {
        const refused = await run(args);
        expect(refused.code).toBe(2);
        expect(refused.stdout).toBe('');
        expect(refused.stderr).toContain(`Usage: proto ${name} <command>`);
        for (const sub of names) expect(refused.stderr).toMatch(new RegExp(`^ {2}${sub} `, 'm'));
      }
      expect((await run([name, 'nonsense'])).stderr).toContain("unknown command 'nonsense'");
    },
  );

  it('an option of one sub-command is refused by its sibling with exit 2 and the sibling usage', async () => {
    const prove = await run(['log', 'verify', '--tiles', 'http://127.0.0.1:1/', '--checkpoint', 'x']);
    expect(prove.code).toBe(2);
    expect(prove.stdout).toBe('');
    expect(prove.stderr).toContain("unknown option '--tiles'");
    expect(prove.stderr).toContain('Usage: proto log verify ');
    const verify = await run(['log', 'prove', '--checkpoint', 'x', '--tiles', 'http://127.0.0.1:1/']);
    expect(verify.code).toBe(2);
    expect(verify.stderr).toContain("unknown option '--checkpoint'");
    expect(verify.stderr).toContain('Usage: proto log prove ');
    const as = await run(['record', 'verify', 'vitality_report', '-', '--keys', 'k', '--as', 'agent']);
    expect(as.code).toBe(2);
    expect(as.stderr).toContain("unknown option '--as'");
  });

  it('help reaches a sub-command through its group: `proto log help prove`, `proto help log`', async () => {
    const viaGroup = await run(['log', 'help', 'prove']);
    expect(viaGroup.code).toBe(0);
    expect(viaGroup.stdout).toBe((await run(['log', 'prove', '--help'])).stdout);
    // commander's help command takes one word: `proto help log prove` shows the group's help.
    const viaProgram = await run(['help', 'log']);
    expect(viaProgram.code).toBe(0);
    expect(viaProgram.stdout).toContain('Usage: proto log <command>');
    expect(viaProgram.stdout).toMatch(/^ {2}prove /m);
  });

  it('proto --help lists every command with its summary; the version comes from package.json', async () => {
    const help = await run(['--help']);
    for (const command of COMMANDS.values()) expect(help.stdout).toContain(`  ${command.name}`);
    expect(help.stdout).toContain('Exit codes: 0');
    const version = await run(['--version']);
    expect(version).toEqual({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/), stderr: '' });
  });

  it.each([
    [['log', 'verify', '--nope'], "unknown option '--nope'", 'Usage: proto log verify'],
    [
      ['receipt', 'verify', 'x', '--log'],
      "option '--log <URL>' argument missing",
      'Usage: proto receipt verify',
    ],
    [['--frob'], "unknown option '--frob'", 'Usage: proto <command>'],
    [['frobnicate'], "unknown command 'frobnicate'", 'Commands:'],
  ])('%j exits 2 with %s and the usage', async (args, message, usage) => {
    const refused = await run(args);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(message);
    expect(refused.stderr).toContain(usage);
  });
});
