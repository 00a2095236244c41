// P490 with the real CLI: `proto verify` of a stranger's V2 bundle that carries another agent's principal-signed RPR
// beside its own passport, signed by that passport's keys, says that no key of the principal signed it, in the JSON
// and on a terminal alike (the same verdict as core and POST /verify).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { borrowedRprBundle } from '@proto/core/testing';
import { tempDirSync } from '@proto/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess } from './run-in-process.ts';
import { runCli } from './test-support.ts';

type Json = Record<string, unknown>;

const work = tempDirSync('cli-principal-signed');
afterAll(() => work.remove());

const fixture = borrowedRprBundle();

function bundleFile(name: string, signed: Json): string {
  const file = path.join(work.dir, name);
  writeFileSync(file, JSON.stringify(signed));
  return file;
}

const agentOnly = (warnings: readonly string[]) =>
  warnings.filter((w) => w.includes('signed by agent keys only'));

describe('P490: proto verify of a bundle signed by agent keys only', () => {
  it("the stranger's bundle: verified, with the warning naming the principal, the agent and the kids", async () => {
    const run = await runCli(['verify', '--json', bundleFile('stranger.json', fixture.stranger)]);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as Json;
    expect(out['verified']).toBe(true);
    const warnings = agentOnly((out['warnings'] as string[] | undefined) ?? []);
    expect(warnings, run.stdout).toHaveLength(1);
    expect(warnings[0]).toContain(fixture.humanId);
    expect(warnings[0]).toContain(fixture.agentId);
    for (const kid of fixture.strangerKids) expect(warnings[0]).toContain(kid);
  });

  it('on a terminal: the warning is printed', async () => {
    const run = await runInProcess(['verify', bundleFile('stranger-terminal.json', fixture.stranger)], {
      terminal: true,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('warning: the bundle is signed by agent keys only');
  });

  it("the victim's own bundle (principal-signed): no such warning (the control)", async () => {
    const run = await runCli(['verify', '--json', bundleFile('victim.json', fixture.victim.signed_bundle)]);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as Json;
    expect(out['verified']).toBe(true);
    expect(agentOnly((out['warnings'] as string[] | undefined) ?? [])).toEqual([]);
  });
});
