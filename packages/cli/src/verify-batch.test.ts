// `proto verify --batch DIR|FILE…` end to end (the real CLI spawned): one NDJSON line per file in
// argument order, the /verify response with its file name, exit 1 when any is not verified. Issue 14.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSignedBundle } from '@proto/core';
import { runProcessSync, tempDirSync } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const work = tempDirSync('cli-batch');
const TMP = work.dir;
afterAll(() => work.remove());

const proto = (args: readonly string[]) => runProcessSync(process.execPath, [MAIN, ...args]);
const lines = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

let good: string;
let dir: string;
beforeAll(() => {
  const built = buildSignedBundle({ tier: 'routine', entries: 2 });
  dir = path.join(TMP, 'bundles');
  mkdirSync(dir);
  good = path.join(dir, 'a-good.json');
  writeFileSync(good, JSON.stringify(built.signed_bundle));
  const tampered = structuredClone(built.signed_bundle) as {
    bundle: { audit_entries: Record<string, unknown>[] };
  };
  tampered.bundle.audit_entries[0]!['outcome'] = 'changed';
  writeFileSync(path.join(dir, 'b-tampered.json'), JSON.stringify(tampered));
  writeFileSync(path.join(dir, 'c-broken.json'), '{not json');
  writeFileSync(path.join(dir, 'ignored.txt'), 'not a bundle');
});

describe('proto verify --batch', () => {
  it('verifies a directory and files in argument order, one line each, exit 1 when one fails', () => {
    const run = proto(['verify', '--batch', dir, good]);
    const out = lines(run.stdout);
    expect(out.map((l) => [path.basename(String(l['file'])), l['verified']])).toEqual([
      ['a-good.json', true],
      ['b-tampered.json', false],
      ['c-broken.json', false],
      ['a-good.json', true],
    ]);
    expect(out[0]).toMatchObject({ version: '2.0', checks: expect.any(Object) });
    expect(run.code).toBe(1);
  });

  it('exits 0 when every bundle verifies', () => {
    const run = proto(['verify', '--batch', good, good, good]);
    expect(lines(run.stdout).map((l) => l['verified'])).toEqual([true, true, true]);
    expect(run.code).toBe(0);
  });

  it('still takes one FILE at a time without --batch', () => {
    const run = proto(['verify', good, good]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/one FILE at a time/);
  });
});
