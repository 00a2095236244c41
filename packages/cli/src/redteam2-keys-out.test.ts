// `proto build --keys-out FILE` writes the agent's and the principal's secret keys. writeFileSync's `mode: 0o600`
// applies only when it creates the file: a FILE that already existed readable by others (an earlier export, a file
// another user prepared in a shared folder) kept its mode and received the secret keys, and a symbolic link at FILE
// had its target overwritten. The keys now go to a new 0600 file beside FILE, renamed over it. Brief redteam2; P530.
import { chmodSync, lstatSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runProcess, tempDirSync } from '@proto/testing';
import { afterAll, describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const work = tempDirSync('cli-redteam2-keys-out');
afterAll(() => work.remove());

const proto = (args: readonly string[]) => runProcess(process.execPath, [MAIN, ...args]);
const mode = (file: string) => (statSync(file).mode & 0o777).toString(8);

describe('P530: proto build --keys-out writes the secret keys to a file only its owner reads', () => {
  it('an existing FILE readable by others: the keys land in a 0600 file', async () => {
    const file = path.join(work.dir, 'keys.json');
    writeFileSync(file, '{}\n');
    chmodSync(file, 0o644);
    const run = await proto(['build', '--keys-out', file]);
    expect(run.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('"principal"');
    expect(mode(file)).toBe('600');
  }, 60_000);

  it('a symbolic link at FILE: the link is replaced, its target is untouched', async () => {
    const target = path.join(work.dir, 'notes.txt');
    writeFileSync(target, 'my notes\n');
    chmodSync(target, 0o644);
    const file = path.join(work.dir, 'linked-keys.json');
    symlinkSync(target, file);
    const run = await proto(['build', '--keys-out', file]);
    expect(run.code).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe('my notes\n');
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    expect(mode(file)).toBe('600');
  }, 60_000);
});
