// P322: a file that is both a signed bundle and a /verify request. `proto verify FILE` (and `--batch`, and
// `proto hash`) take an object with a `signed_bundle` member as a request and judge that member; a file whose own
// `bundle` and `signature` (the bundle a person reads first, here tampered) sit beside a `signed_bundle` holding
// someone's genuine bundle was reported VERIFIED, exit 0, with the genuine bundle's hash: a verdict on a bundle the
// reader never looked at. Such a file is now unusable input, exit 2 (a failed line in a batch): which one is meant
// is unclear.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSignedBundle } from '@proto/core';
import { runProcessSync, tempDirSync } from '@proto/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess } from './run-in-process.ts';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const work = tempDirSync('cli-redteam-two-bundles');
afterAll(() => work.remove());

type Json = Record<string, unknown>;

const genuine = buildSignedBundle({ tier: 'routine' }).signed_bundle as Json;
/** The same bundle with its first audit entry's outcome changed: its signatures no longer hold. */
const tampered = structuredClone(genuine) as { bundle: { audit_entries: Json[] } } & Json;
tampered.bundle.audit_entries[0]!['outcome'] = 'approved by the board';

const file = path.join(work.dir, 'two-bundles.json');
writeFileSync(file, JSON.stringify({ ...tampered, signed_bundle: genuine }));

describe('P322: a signed bundle that also carries a signed_bundle member', () => {
  it('proto verify: exit 2 naming both readings, no verdict', async () => {
    const run = await runInProcess(['verify', '--json', file]);
    // Before P322: exit 0, `verified: true` (the hidden signed_bundle judged, the tampered bundle never looked at).
    expect(run.code, run.stdout).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/both a signed bundle .* and a \/verify request/);
  });

  it('proto hash: exit 2, no hash of the hidden bundle', async () => {
    const run = await runInProcess(['hash', file]);
    expect(run.code, run.stdout).toBe(2);
    expect(run.stderr).toMatch(/both a signed bundle .* and a \/verify request/);
  });

  it('proto verify --batch: the file’s line is not verified, exit 1', () => {
    const run = runProcessSync(process.execPath, [MAIN, 'verify', '--batch', file]);
    const line = JSON.parse(run.stdout.split('\n')[0] ?? '{}') as { verified?: boolean; errors?: string[] };
    expect(line.verified).toBe(false);
    expect(line.errors?.join(' ')).toMatch(/both a signed bundle .* and a \/verify request/);
    expect(run.code).toBe(1);
  });

  it('the genuine bundle alone, and wrapped as a request, still verify (the control)', async () => {
    const alone = path.join(work.dir, 'alone.json');
    writeFileSync(alone, JSON.stringify(genuine));
    const wrapped = path.join(work.dir, 'wrapped.json');
    writeFileSync(wrapped, JSON.stringify({ signed_bundle: genuine }));
    expect((await runInProcess(['verify', '--json', alone])).code).toBe(0);
    expect((await runInProcess(['verify', '--json', wrapped])).code).toBe(0);
  });
});
