// P502 with the real CLI: a VerifierPolicy file with `require_principal_signature: true` makes `proto verify` fail a
// V2 bundle no key of the RPR's binding_keys signed (exit 1, PROTO-E401 under `policy`), one bundle or a --batch, as
// core and POST /verify do with the same policy; the principal-signed bundle still verifies.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { borrowedRprBundle } from '@proto/core/testing';
import { tempDirSync } from '@proto/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './test-support.ts';

type Json = Record<string, unknown>;

const work = tempDirSync('cli-require-principal-signature');
afterAll(() => work.remove());

const fixture = borrowedRprBundle();

function file(name: string, value: unknown): string {
  const at = path.join(work.dir, name);
  writeFileSync(at, JSON.stringify(value));
  return at;
}

const policy = file('policy.json', { default_mode: 'hybrid_preferred', require_principal_signature: true });
const stranger = file('stranger.json', fixture.stranger);
const victim = file('victim.json', fixture.victim.signed_bundle);

const codes = (out: Json) =>
  ((out['error_details'] as Json[] | undefined) ?? []).map((d) => [d['code'], d['check']]);

describe('P502: proto verify --policy with require_principal_signature', () => {
  it("the stranger's bundle, signed by its passport keys only: not verified, PROTO-E401, exit 1", async () => {
    const run = await runCli(['verify', '--json', '--policy', policy, stranger]);
    expect(run.code, run.stderr).toBe(1);
    const out = JSON.parse(run.stdout) as Json;
    expect(out['verified']).toBe(false);
    expect(codes(out)).toEqual([['PROTO-E401', 'policy']]);
    expect(JSON.stringify(out)).toContain('require_principal_signature');
  });

  it("the victim's own bundle, signed by its principal's keys: verified, exit 0", async () => {
    const run = await runCli(['verify', '--json', '--policy', policy, victim]);
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as Json)['verified']).toBe(true);
  });

  it('--batch: the same verdicts, one line each', async () => {
    const run = await runCli(['verify', '--batch', '--policy', policy, stranger, victim]);
    expect(run.code, run.stderr).toBe(1);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Json);
    expect(lines.map((l) => l['verified'])).toEqual([false, true]);
    expect(codes(lines[0] as Json)).toEqual([['PROTO-E401', 'policy']]);
  });

  it('without the member: verified with the P490 warning (the default, SDK parity)', async () => {
    const run = await runCli(['verify', '--json', stranger]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('signed by agent keys only');
  });

  it('P556: --require-principal-signature without a policy file: the same verdicts, one FILE and --batch', async () => {
    const one = await runCli(['verify', '--json', '--require-principal-signature', stranger]);
    expect(one.code, one.stderr).toBe(1);
    expect(codes(JSON.parse(one.stdout) as Json)).toEqual([['PROTO-E401', 'policy']]);
    const own = await runCli(['verify', '--json', '--require-principal-signature', victim]);
    expect(own.code, own.stderr).toBe(0);
    const batch = await runCli(['verify', '--batch', '--require-principal-signature', stranger, victim]);
    expect(batch.code, batch.stderr).toBe(1);
    const lines = batch.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Json);
    expect(lines.map((l) => l['verified'])).toEqual([false, true]);
    expect(codes(lines[0] as Json)).toEqual([['PROTO-E401', 'policy']]);
  });

  it('P556: the flag wins over a policy file whose member is false', async () => {
    const off = file('policy-off.json', {
      default_mode: 'hybrid_preferred',
      require_principal_signature: false,
    });
    const run = await runCli([
      'verify',
      '--json',
      '--policy',
      off,
      '--require-principal-signature',
      stranger,
    ]);
    expect(run.code, run.stderr).toBe(1);
    expect(codes(JSON.parse(run.stdout) as Json)).toEqual([['PROTO-E401', 'policy']]);
  });

  it('P504: --batch with a policy the verifier refuses is bad input (exit 2, the file named), as without --batch', async () => {
    const bad = file('bad-policy.json', {
      default_mode: 'hybrid_preferred',
      require_principal_signature: 'yes',
    });
    for (const args of [['--json'], ['--batch']]) {
      const run = await runCli(['verify', ...args, '--policy', bad, stranger]);
      expect(run.code, `${args}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toContain('bad-policy.json');
      expect(run.stderr).toContain('require_principal_signature must be a boolean');
      expect(run.stderr).not.toContain('internal error');
    }
  });
});
