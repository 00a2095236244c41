// `proto` read a file or stdin whole, whatever its size: a 600 MB file of plain ASCII took 1.3 GB of memory and was
// then called "not valid UTF-8" (the text was past what one string holds), a false reason; the same document given
// as a URL is refused past 16 MiB (@proto/clients' cap, P162), and the service reads 1 MiB. Every file and stdin is
// now refused past 16 MiB, on its size before it is read where the size is known. Brief redteam2; P528.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSignedBundle } from '@proto/core';
import { runProcess, tempDirSync } from '@proto/testing';
import { afterAll, describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const work = tempDirSync('cli-redteam2-size');
afterAll(() => work.remove());

const proto = (args: readonly string[], input: string | Buffer = '') =>
  runProcess(process.execPath, [MAIN, ...args], { input });

const signed = buildSignedBundle({ entries: 1 }).signed_bundle;
/** A genuine bundle with 17 MiB no signature covers: what the URL reader refuses, read whole from a file. */
const padded = JSON.stringify({ ...signed, padding: 'x'.repeat(17 * 1024 * 1024) });
const TOO_LARGE = /more than proto reads from a file, stdin or URL \(16 MiB\)/;

describe('P528: proto reads at most 16 MiB from a file or stdin', () => {
  it('a 17 MiB bundle file: exit 2 naming the cap, no verdict', async () => {
    const file = path.join(work.dir, 'padded.json');
    writeFileSync(file, padded);
    const run = await proto(['verify', file, '--json']);
    expect({ code: run.code, stdout: run.stdout.slice(0, 80) }).toEqual({ code: 2, stdout: '' });
    expect(run.stderr).toMatch(TOO_LARGE);
  }, 60_000);

  it('the same on stdin', async () => {
    const run = await proto(['verify', '-', '--json'], padded);
    expect({ code: run.code, stdout: run.stdout.slice(0, 80) }).toEqual({ code: 2, stdout: '' });
    expect(run.stderr).toMatch(TOO_LARGE);
  }, 60_000);

  it('a 3 GiB (sparse) evidence file: refused on its size, not read', async () => {
    const file = path.join(work.dir, 'huge.json');
    execFileSync('truncate', ['-s', '3G', file]);
    const bundle = path.join(work.dir, 'bundle.json');
    writeFileSync(bundle, JSON.stringify(signed));
    const run = await proto(['verify', bundle, '--receipt', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(TOO_LARGE);
  }, 60_000);

  it('held: a bundle under the cap is verified as before', async () => {
    const file = path.join(work.dir, 'small.json');
    writeFileSync(file, JSON.stringify({ ...signed, padding: 'x'.repeat(1024 * 1024) }));
    const run = await proto(['verify', file, '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ verified: true });
  }, 60_000);
});

describe('P528: proto verify --batch reads at most 16 MiB a file', () => {
  it('a 17 MiB file named or in a directory gets a failed line naming the cap; the others are verified', async () => {
    const dir = path.join(work.dir, 'batch');
    execFileSync('mkdir', [dir]);
    writeFileSync(path.join(dir, 'a-padded.json'), padded);
    writeFileSync(path.join(dir, 'b-genuine.json'), JSON.stringify(signed));
    const run = await proto(['verify', '--batch', dir, path.join(dir, 'a-padded.json')]);
    const lines = run.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { verified: boolean; errors?: string[] });
    expect(lines.map((l) => l.verified)).toEqual([false, true, false]);
    expect(lines[0]?.errors?.[0]).toMatch(TOO_LARGE);
    expect(lines[2]?.errors?.[0]).toMatch(TOO_LARGE);
    expect(run.code).toBe(1);
  }, 60_000);
});
