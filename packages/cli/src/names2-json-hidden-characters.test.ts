// P596 (brief "names2" item 1): the publisher of a revocation list a person checks with `proto revocation verify`
// (or anyone whose text `proto` prints as JSON: a record, a log answer) writes C1 controls, bidi overrides and
// zero-width characters into a name, here the list's `issuer` and `jurisdiction`, which the schema takes as any
// text. JSON.stringify escapes only U+0000–U+001F, so U+009B (CSI: a terminal's ESC [ in one character), U+202E and
// U+200B reached the terminal raw: `U+009B 2 J` cleared the screen, a bidi override reversed what followed. The real
// `proto` process on a pseudo-terminal: the JSON it prints carries none of them raw, and parses to the same values.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { signRevocationList } from '@proto/core';
import { at, sampleList, T0, testKey } from '@proto/core/testing';
import { runProcessSync, tempDirSync } from '@proto/testing';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../../node_modules/.bin/proto', import.meta.url));
const work = tempDirSync('cli-names2-hidden');
afterAll(() => work.remove());

/** What a terminal acts on or hides that JSON.stringify leaves raw: DEL and C1, format characters, separators. */
const RAW_HIDDEN = /[\u007f-\u009f\p{Cf}\u2028\u2029]/u;

describe('P596: proto prints JSON without the raw characters a terminal acts on or hides', () => {
  it('a revocation list naming its issuer with CSI, a bidi override and a zero-width space', () => {
    const signer = testKey(7);
    const issuer = 'did:web:rev.example\u009b2J\u009b1;31m\u202efdp.exe\u200b\u2028\u007f';
    const jurisdiction = 'FR\u009b8m\ufeff';
    const signed = signRevocationList(sampleList({ issuer, jurisdiction }), signer.secretKey);
    if (!signed.ok) throw new Error(signed.error.message);
    const file = `${work.dir}/list.json`;
    writeFileSync(file, JSON.stringify(signed.value));

    const run = runProcessSync(
      BIN,
      ['revocation', 'verify', file, '--key', signer.publicKeyB64, '--at', at(60, T0).toISOString()],
      { terminal: true },
    );
    expect(run.stdout).not.toMatch(RAW_HIDDEN);
    const printed = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(printed).toMatchObject({ verified: true, issuer, jurisdiction });
    expect(run.code).toBe(0);
  });

  it('`proto verify --batch` over a directory whose file name holds CSI and a bidi override', () => {
    const dir = `${work.dir}/batch`;
    mkdirSync(dir);
    const name = 'bundle\u009b2J\u202enosj.json';
    writeFileSync(`${dir}/${name}`, '{"not": "a bundle"}');
    const run = runProcessSync(BIN, ['verify', '--batch', dir], { terminal: true });
    expect(run.stdout).not.toMatch(RAW_HIDDEN);
    const line = JSON.parse(run.stdout.trim().split('\n')[0] ?? '') as { file: string; verified: boolean };
    expect(line.file).toContain(name);
    expect(line.verified).toBe(false);
  });
});
