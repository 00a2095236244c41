// `proto record sign|verify` end to end: build (keys out) → sign a certificate → verify; a flipped byte, another
// context (profile) or another agent's keys do not verify. Issue 15 item 5.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ProcessRun, runProcess, tempDirSync } from '@proto/testing';
import { afterAll, describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const EXAMPLE = fileURLToPath(
  new URL('../../core/test-vectors/schema-examples/commissioning_certificate.json', import.meta.url),
);
const work = tempDirSync('cli-record');
const TMP = work.dir;
afterAll(() => work.remove());

function proto(args: readonly string[]): Promise<ProcessRun> {
  return runProcess(process.execPath, [MAIN, ...args]);
}

describe('proto record', () => {
  it('signs a certificate with the keys of `proto build --keys-out`, and verify catches tampering', async () => {
    const file = (name: string) => path.join(TMP, name);
    const built = await proto(['build', '--keys-out', file('keys.json')]);
    expect(built.code, built.stderr).toBe(0);
    const other = await proto(['build', '--keys-out', file('other-keys.json')]);
    expect(other.code).toBe(0);
    const bundle = JSON.parse(built.stdout) as {
      bundle: Record<string, { payload: Record<string, string> }>;
    };
    const cert = JSON.parse(readFileSync(EXAMPLE, 'utf8')) as Record<string, unknown>;
    cert['agent_id'] = bundle.bundle['agent_passport']?.payload['agent_id'];
    writeFileSync(file('cert.json'), JSON.stringify(cert));

    const signed = await proto([
      'record',
      'sign',
      'commissioning_certificate',
      file('cert.json'),
      '--keys',
      file('keys.json'),
    ]);
    expect(signed.code, signed.stderr).toBe(0);
    writeFileSync(file('signed.json'), signed.stdout);
    const ok = await proto([
      'record',
      'verify',
      'commissioning_certificate',
      file('signed.json'),
      '--keys',
      file('keys.json'),
    ]);
    expect(ok.code, ok.stdout).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ valid: true });

    writeFileSync(file('flipped.json'), signed.stdout.replace('Reconcile', 'reconcile'));
    const flipped = await proto([
      'record',
      'verify',
      'commissioning_certificate',
      file('flipped.json'),
      '--keys',
      file('keys.json'),
    ]);
    expect(flipped.code).toBe(1);
    expect(JSON.parse(flipped.stdout)).toMatchObject({ valid: false, code: 'CLASSICAL_SIG_INVALID' });

    const wrongContext = await proto([
      'record',
      'verify',
      'commissioning_certificate',
      file('signed.json'),
      '--keys',
      file('keys.json'),
      '--profile',
      'dcp-ai',
    ]);
    expect(wrongContext.code).toBe(1);
    const wrongKeys = await proto([
      'record',
      'verify',
      'commissioning_certificate',
      file('signed.json'),
      '--keys',
      file('other-keys.json'),
    ]);
    expect(wrongKeys.code).toBe(1);
  });
});
