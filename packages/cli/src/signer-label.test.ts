// P280 with the real CLI: `proto verify` of a V2 bundle whose unsigned `signature.signer` names someone else than
// its parties says so in a warning, in the JSON and on a terminal alike (the same verdict as POST /verify).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildSignedBundle } from '@proto/core';
import { tempDirSync } from '@proto/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './test-support.ts';

type Json = Record<string, unknown>;

const work = tempDirSync('cli-signer-label');
afterAll(() => work.remove());

const MALLORY = 'did:human:mallory-0001';

function bundleFile(name: string, id?: string): string {
  const signed = buildSignedBundle({ shape: 'sdk', entries: 2 }).signed_bundle as Json;
  if (id !== undefined) ((signed['signature'] as Json)['signer'] as Json)['id'] = id;
  const file = path.join(work.dir, name);
  writeFileSync(file, JSON.stringify(signed));
  return file;
}

describe('P280: proto verify of a re-labelled V2 bundle', () => {
  it('the original: verified, no signer warning (the control)', async () => {
    const run = await runCli(['verify', '--json', bundleFile('original.json')]);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as Json;
    expect(out['verified']).toBe(true);
    expect(JSON.stringify(out['warnings'] ?? [])).not.toContain('signature.signer');
  });

  it('re-labelled: still verified, with a warning naming the label and the principal', async () => {
    const run = await runCli(['verify', '--json', bundleFile('relabelled.json', MALLORY)]);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as Json;
    expect(out['verified']).toBe(true);
    const warnings = (out['warnings'] as string[] | undefined) ?? [];
    const label = warnings.filter((w) => w.includes('signature.signer'));
    expect(label, run.stdout).toHaveLength(1);
    expect(label[0]).toContain(MALLORY);
    expect(label[0]).toContain('covered by no signature');
  });
});
