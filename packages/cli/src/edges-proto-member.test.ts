// P336: a member named `__proto__` in a file `proto verify` reads (the bundle, or an evidence document given with
// --receipt) was data to the CLI's JSON reader, as it was to /verify's, while the service's CBOR decoder and its
// JSON parser refuse it. Every reader now refuses it: the CLI exits 2 naming it, with no verdict. The real CLI.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSignedBundle } from '@proto/core';
import { runProcess, tempDirSync } from '@proto/testing';
import { afterAll, describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const work = tempDirSync('cli-proto-member');
afterAll(() => work.remove());

const text = JSON.stringify(buildSignedBundle({ tier: 'routine', entries: 2 }).signed_bundle);
const proto = (args: readonly string[]) => runProcess(process.execPath, [MAIN, ...args], { input: '' });

describe('proto verify refuses a `__proto__` member as the service does (P336)', () => {
  it('in the bundle: exit 2 naming it, no verdict', async () => {
    const file = path.join(work.dir, 'bundle.json');
    writeFileSync(file, `{"__proto__":{"x":1},${text.slice(1)}`);
    const run = await proto(['verify', file]);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('"__proto__"');
    expect(run.code).toBe(2);
  });

  it('in a --receipt document: exit 2 naming it, no verdict', async () => {
    const file = path.join(work.dir, 'plain.json');
    writeFileSync(file, text);
    const receipt = path.join(work.dir, 'receipt.json');
    writeFileSync(receipt, '{"__proto__":{"bundle_hash":"x"},"chain":"bitcoin"}');
    const run = await proto(['verify', file, '--receipt', receipt]);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('"__proto__"');
    expect(run.code).toBe(2);
  });

  it('the bundle without it verifies (control)', async () => {
    const file = path.join(work.dir, 'control.json');
    writeFileSync(file, text);
    expect((await proto(['verify', file])).code).toBe(0);
  });
});
