// P232: `proto verify FILE` judges the file's own bytes, as the verification service judges a body's. A bundle signed
// over text holding U+FFFD, saved with the single byte FF in its place (no UTF-8 at all), was decoded leniently
// (FF read back as U+FFFD), so the signature held over a text the file does not contain and the CLI said verified,
// where the service refuses those bytes (400) and the console refuses the file (P220).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSignedBundle } from '@proto/core';
import { replacementCharAsFF, runProcess, tempDirSync } from '@proto/testing';
import { afterAll, describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const work = tempDirSync('cli-utf8');
afterAll(() => work.remove());

type Json = Record<string, unknown>;

const signed = buildSignedBundle({
  entries: 2,
  hooks: {
    entry: (entry: Json, i: number) => {
      if (i === 0) entry['evidence'] = { ...(entry['evidence'] as Json), note: 'before\uFFFDafter' };
    },
  },
}).signed_bundle;
const text = JSON.stringify(signed);

const proto = (args: readonly string[], input: string | Buffer = '') =>
  runProcess(process.execPath, [MAIN, ...args], { input });

describe('proto verify reads its input as strict UTF-8 (P232)', () => {
  it('a file holding a byte that is not UTF-8 where the signed text has U+FFFD: exit 2, no verdict', async () => {
    const file = path.join(work.dir, 'mangled.json');
    writeFileSync(file, replacementCharAsFF(Buffer.from(text, 'utf8')));
    const run = await proto(['verify', file]);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`${file}: not valid UTF-8`);
    expect(run.code).toBe(2);
  });

  it('the same bytes on standard input: exit 2, no verdict', async () => {
    const run = await proto(['verify', '-'], replacementCharAsFF(Buffer.from(text, 'utf8')));
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('<stdin>: not valid UTF-8');
    expect(run.code).toBe(2);
  });

  it('the file as signed, U+FFFD and all, verifies (the control)', async () => {
    const file = path.join(work.dir, 'as-signed.json');
    writeFileSync(file, text, 'utf8');
    const run = await proto(['verify', file]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });
});
