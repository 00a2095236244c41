// The help commander generates from the command table (P40): every command answers --help with its usage
// and every option it accepts; unknown options and commands are refused with exit 2 and the usage.
import { describe, expect, it } from 'vitest';
import { COMMANDS } from './commands/index.ts';
import { runInProcess } from './run-in-process.ts';

const run = (args: readonly string[]) => runInProcess(args);

describe('generated help', () => {
  it.each([...COMMANDS.keys()])('%s --help shows its usage and every option it parses', async (name) => {
    const help = await run([name, '--help']);
    expect(help.code).toBe(0);
    expect(help.stderr).toBe('');
    expect(help.stdout).toMatch(new RegExp(`^Usage: proto ${name} `));
    for (const option of COMMANDS.get(name)?.options ?? []) expect(help.stdout).toContain(option.flags);
    expect(help.stdout).toContain('-h, --help');
  });

  it('proto --help lists every command with its summary; the version comes from package.json', async () => {
    const help = await run(['--help']);
    for (const command of COMMANDS.values()) expect(help.stdout).toContain(`  ${command.name}`);
    expect(help.stdout).toContain('Exit codes: 0');
    const version = await run(['--version']);
    expect(version).toEqual({ code: 0, stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/), stderr: '' });
  });

  it.each([
    [['log', 'verify', '--nope'], "unknown option '--nope'", 'Usage: proto log'],
    [['receipt', 'verify', 'x', '--log'], "option '--log <URL>' argument missing", 'Usage: proto receipt'],
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
