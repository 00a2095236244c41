// `proto verify --batch DIR` reads a directory of bundles someone else sent (an unpacked archive, a shared inbox).
// Whoever filled it chooses each entry's kind: a FIFO named `x.json` (tar carries FIFOs) blocked its worker for good,
// so the run never ended; a symbolic link led the reader out of the directory (to another FIFO, a device such as
// /dev/zero, or any file the user can read, judged as if it had been sent). A directory entry is now read only when
// it is a regular file, opened without following a link and without waiting on a FIFO; any other kind gets its own
// `verified: false` line naming it. A file named on the command line is read as before. Brief redteam2; P527.
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSignedBundle } from '@proto/core';
import { runProcess, tempDirSync } from '@proto/testing';
import { afterAll, describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const work = tempDirSync('cli-redteam2-batch-dir');
afterAll(() => work.remove());

const genuine = JSON.stringify(buildSignedBundle({ entries: 1 }).signed_bundle);
const inbox = path.join(work.dir, 'inbox');
const outside = path.join(work.dir, 'outside');
mkdirSync(inbox);
mkdirSync(outside);
writeFileSync(path.join(inbox, '1-sent.json'), genuine);
execFileSync('mkfifo', [path.join(inbox, '2-fifo.json')]);
writeFileSync(path.join(outside, 'private.json'), genuine);
symlinkSync(path.join(outside, 'private.json'), path.join(inbox, '3-link-out.json'));
execFileSync('mkfifo', [path.join(outside, 'pipe')]);
symlinkSync(path.join(outside, 'pipe'), path.join(inbox, '4-link-fifo.json'));

type Line = { file: string; verified: boolean; errors?: string[] };

describe('P527: proto verify --batch DIR reads regular files only', () => {
  it('a FIFO or a symbolic link in the directory gets its own failed line; the run ends', async () => {
    // The kill only ends a run that hangs, so that the failure shows what was printed.
    const run = await runProcess(process.execPath, [MAIN, 'verify', '--batch', inbox], {
      killAfterMs: 20_000,
    });
    const lines = run.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Line);
    expect({ code: run.code, files: lines.map((l) => path.basename(l.file)) }).toEqual({
      code: 1,
      files: ['1-sent.json', '2-fifo.json', '3-link-out.json', '4-link-fifo.json'],
    });
    expect(lines[0]?.verified).toBe(true);
    expect(lines[1]).toMatchObject({
      verified: false,
      errors: [expect.stringMatching(/not a regular file/)],
    });
    expect(lines[2]).toMatchObject({ verified: false, errors: [expect.stringMatching(/symbolic link/)] });
    expect(lines[3]).toMatchObject({ verified: false, errors: [expect.stringMatching(/symbolic link/)] });
  }, 120_000);

  it('held: a file named on the command line is read through its link, as proto verify FILE reads it', async () => {
    const run = await runProcess(process.execPath, [
      MAIN,
      'verify',
      '--batch',
      path.join(inbox, '3-link-out.json'),
    ]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout) as Line).toMatchObject({ verified: true });
  }, 60_000);
});
