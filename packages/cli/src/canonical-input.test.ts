// `proto verify` on input with no single canonical reading (issue 12 item 2 row c): a duplicate member
// name, 1e400 or a lone surrogate exits 2 with a message naming the path, instead of a verdict.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ProcessRun, runProcess, tempDirSync } from '@proto/testing';
import { afterAll, describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const work = tempDirSync('cli-canon');
const TMP = work.dir;
afterAll(() => work.remove());

type Run = ProcessRun;

function proto(args: readonly string[], input = ''): Promise<Run> {
  return runProcess(process.execPath, [MAIN, ...args], { input });
}

function edit(text: string, find: string, replacement: string): string {
  const at = text.indexOf(find);
  if (at === -1) throw new Error(`${find} not in the bundle`);
  return text.slice(0, at) + replacement + text.slice(at + find.length);
}

const build = await proto(['build', '--entries', '2']);
if (build.code !== 0) throw new Error(`proto build failed: ${build.stderr}`);
const bundleText = JSON.stringify(JSON.parse(build.stdout));

describe.concurrent('proto verify refuses input with no canonical form', () => {
  it('the untouched bundle verifies (exit 0)', async () => {
    const run = await proto(['verify', '-'], bundleText);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });

  it('a fake agent_id before the real one: exit 2, no verdict on stdout, the path on stderr', async () => {
    const forged = path.join(TMP, 'forged.json');
    writeFileSync(forged, edit(bundleText, '"agent_id":', '"agent_id":"agent-evil-00000000","agent_id":'));
    const run = await proto(['verify', forged]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(
      `${forged}: JSON has no canonical form: $.bundle.agent_passport.payload: member name "agent_id" appears twice in one object`,
    );
  });

  it.each([
    ['1e400', '"evidence_hash":null', '"evidence_hash":1e400', 'number has no finite value'],
    ['a lone surrogate', '"agent_id":"', '"agent_id":"\\udfff', 'string contains a lone surrogate'],
  ])('%s: exit 2 with the reason', async (_what, find, replacement, reason) => {
    const run = await proto(['verify', '-'], edit(bundleText, find, replacement));
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('<stdin>: JSON has no canonical form: $.bundle.');
    expect(run.stderr).toContain(reason);
  });
});
