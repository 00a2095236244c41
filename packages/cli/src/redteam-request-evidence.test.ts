// P317: `proto verify FILE` takes a /verify request body ({signed_bundle, …}) and says it prints what POST /verify
// answers. A request body may carry its own `jurisdiction_attestation` and `anchor_receipt`, which the service checks;
// the CLI dropped them without a word. So a request for bundle B carrying the attestation the real revocation service
// issued for bundle A, checked with `--attestation-key` (the issuer's key, the person's intent plain), printed
// VERIFIED, exit 0, where the service trusting that key answers `verified: false`. The request's evidence is now
// checked as `--attestation` / `--receipt` would be (both at once is a usage error), and without the keys or sources to
// check it, it is reported not checked, as the service reports it.
import { writeFileSync } from 'node:fs';
import { buildSignedBundle } from '@proto/core';
import { call, type RunningService, startService } from '@proto/revocation/testing';
import { tempDirSync } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from './run-in-process.ts';

const work = tempDirSync('cli-redteam-request-evidence');
let revocation: RunningService;

type Signed = {
  bundle: { manifest: { rpr_hash: string }; agent_passport: { payload: { agent_id: string } } };
};
const bundleA = buildSignedBundle({ tier: 'standard' }).signed_bundle as unknown as Signed;
const bundleB = buildSignedBundle({ tier: 'standard' }).signed_bundle as unknown as Signed;
let attestationOfA: unknown;
let issuerKey: string;

beforeAll(async () => {
  revocation = await startService({
    dataDir: tempDirSync('cli-redteam-request-evidence-service').dir,
    env: { JURISDICTION: 'US', LIST_MAX_AGE_S: '0', LOG_LEVEL: 'warn' },
    timer: false,
  });
  const issued = await call(revocation, 'POST', '/attest', {
    rpr_hash: bundleA.bundle.manifest.rpr_hash,
    agent_id: bundleA.bundle.agent_passport.payload.agent_id,
  });
  expect(issued.status).toBe(200);
  attestationOfA = issued.json['attestation'];
  const keys = await call(revocation, 'GET', '/.well-known/proto-attestation-keys.json', undefined, null);
  issuerKey = (keys.json['keys'] as { public_key_b64: string }[])[0]?.public_key_b64 as string;
});
afterAll(async () => {
  await revocation?.close();
  work.remove();
});

function requestFile(name: string, request: Record<string, unknown>): string {
  const file = `${work.dir}/${name}.json`;
  writeFileSync(file, JSON.stringify(request));
  return file;
}

describe('P317: the evidence a /verify request file carries is checked, not dropped', () => {
  it("bundle B's request carrying bundle A's attestation, checked with the issuer's key: not verified", async () => {
    const file = requestFile('b-with-a', {
      signed_bundle: bundleB,
      jurisdiction_attestation: attestationOfA,
    });
    const run = await runInProcess(['verify', '--json', file, '--attestation-key', issuerKey]);
    // Before P317: exit 0, `verified: true`, `attestation: skipped`, no word of the attestation.
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ verified: false, checks: { attestation: 'fail' } });
  });

  it("bundle A's request with its own attestation passes (the control)", async () => {
    const file = requestFile('a-with-a', {
      signed_bundle: bundleA,
      jurisdiction_attestation: attestationOfA,
    });
    const run = await runInProcess(['verify', '--json', file, '--attestation-key', issuerKey]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ verified: true, checks: { attestation: 'pass' } });
  });

  it('without a key, its own attestation is reported not checked, as the service reports it; a receipt for another hash fails', async () => {
    const file = requestFile('a-unkeyed', {
      signed_bundle: bundleA,
      jurisdiction_attestation: attestationOfA,
      anchor_receipt: { chain: 'transparency-log', bundle_hash: `sha256:${'0'.repeat(64)}` },
    });
    const run = await runInProcess(['verify', '--json', file]);
    const answer = JSON.parse(run.stdout) as { warnings?: string[]; checks: Record<string, string> };
    expect(answer.checks).toMatchObject({ attestation: 'skipped' });
    expect(answer.warnings).toEqual(
      expect.arrayContaining([expect.stringMatching(/^jurisdiction_attestation not checked: /)]),
    );
    // A receipt for another hash is a contradiction the CLI finds without a source, as with --receipt.
    expect(answer.checks).toMatchObject({ anchor: 'fail' });
    expect(run.code).toBe(1);
  });

  it("without a key, bundle A's attestation on bundle B's request fails: its RPR and agent are not B's (P437)", async () => {
    const file = requestFile('b-unkeyed', {
      signed_bundle: bundleB,
      jurisdiction_attestation: attestationOfA,
    });
    const run = await runInProcess(['verify', '--json', file]);
    const answer = JSON.parse(run.stdout) as { verified: boolean; checks: Record<string, string> };
    expect(answer).toMatchObject({ verified: false, checks: { attestation: 'fail' } });
    expect(run.code).toBe(1);
  });

  it('the request’s attestation and --attestation together are a usage error', async () => {
    const file = requestFile('b-twice', { signed_bundle: bundleB, jurisdiction_attestation: attestationOfA });
    const other = `${work.dir}/attestation.json`;
    writeFileSync(other, JSON.stringify(attestationOfA));
    const run = await runInProcess(['verify', file, '--attestation', other, '--attestation-key', issuerKey]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/jurisdiction_attestation.*--attestation/);
  });
});
