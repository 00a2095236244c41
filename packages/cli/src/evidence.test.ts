// `proto verify --revocation-list` against the real revocation service in-process: the list fetched by URL (or read
// from a file) and checked, the bundle's agent looked up, the verdict and exit code follow. D20; issue 13 item 7.
import { writeFileSync } from 'node:fs';
import { buildSignedBundle } from '@proto/core';
import { call, type RunningService, revoke, startService } from '@proto/revocation/testing';
import { tempDirSync } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from './run-in-process.ts';

const work = tempDirSync('cli-evidence');
let revocation: RunningService;
let listKey: string;

const proto = (args: readonly string[]) => runInProcess(args);

beforeAll(async () => {
  revocation = await startService({
    dataDir: tempDirSync('cli-evidence-service').dir,
    env: { JURISDICTION: 'US', LIST_MAX_AGE_S: '0', LOG_LEVEL: 'warn' },
    timer: false,
  });
  const health = await call(revocation, 'GET', '/health', undefined, null);
  listKey = health.json['revocation_public_key_b64'] as string;
});
afterAll(async () => {
  await revocation?.close();
  work.remove();
});

describe('proto verify with a jurisdiction attestation', () => {
  const built = buildSignedBundle({ tier: 'standard' });
  const signed = built.signed_bundle as {
    bundle: { manifest: { rpr_hash: string }; agent_passport: { payload: { agent_id: string } } };
  };
  const bundleFile = `${work.dir}/attested-bundle.json`;
  writeFileSync(bundleFile, JSON.stringify(built.signed_bundle));
  const otherFile = `${work.dir}/other-bundle.json`;
  writeFileSync(otherFile, JSON.stringify(buildSignedBundle({ tier: 'standard' }).signed_bundle));

  it('passes an attestation the real service issued for this bundle and fails it for another bundle', async () => {
    const issued = await call(revocation, 'POST', '/attest', {
      rpr_hash: signed.bundle.manifest.rpr_hash,
      agent_id: signed.bundle.agent_passport.payload.agent_id,
    });
    expect(issued.status).toBe(200);
    const attestationFile = `${work.dir}/attestation.json`;
    writeFileSync(attestationFile, JSON.stringify(issued.json['attestation']));
    const keysDoc = await call(
      revocation,
      'GET',
      '/.well-known/proto-attestation-keys.json',
      undefined,
      null,
    );
    const issuerKey = (keysDoc.json['keys'] as { public_key_b64: string }[])[0]?.public_key_b64 as string;
    const evidence = ['--attestation', attestationFile, '--attestation-key', issuerKey];

    const pass = await proto(['verify', '--json', ...evidence, bundleFile]);
    expect(pass.code, pass.stdout + pass.stderr).toBe(0);
    expect(JSON.parse(pass.stdout)).toMatchObject({ verified: true, checks: { attestation: 'pass' } });

    const other = await proto(['verify', '--json', ...evidence, otherFile]);
    expect(other.code).toBe(1);
    expect(JSON.parse(other.stdout)).toMatchObject({ verified: false, checks: { attestation: 'fail' } });
  });
});

describe('proto verify with a revocation list', () => {
  const built = buildSignedBundle({ tier: 'standard' });
  const bundle = built.signed_bundle as { bundle: { agent_passport: { payload: { agent_id: string } } } };
  const agentId = bundle.bundle.agent_passport.payload.agent_id;
  const bundleFile = `${work.dir}/bundle.json`;
  writeFileSync(bundleFile, JSON.stringify(built.signed_bundle));

  it('passes the revocation check when the signed list (by URL) does not name the agent', async () => {
    const run = await proto([
      'verify',
      '--json',
      '--revocation-list',
      revocation.listUrl,
      '--revocation-key',
      listKey,
      bundleFile,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const json = JSON.parse(run.stdout) as { verified: boolean; checks: Record<string, string> };
    expect(json.verified).toBe(true);
    expect(json.checks['revocation']).toBe('pass');
  });

  it('refuses a list signed by a key the user did not give', async () => {
    const stranger = Buffer.alloc(32, 7).toString('base64');
    const run = await proto([
      'verify',
      '--json',
      '--revocation-list',
      revocation.listUrl,
      '--revocation-key',
      stranger,
      bundleFile,
    ]);
    expect(run.code).toBe(1);
    const json = JSON.parse(run.stdout) as { verified: boolean; checks: Record<string, string> };
    expect(json).toMatchObject({ verified: false, checks: { revocation: 'fail' } });
  });

  it('fails with E300 once the agent is revoked, from the URL and from a saved file', async () => {
    expect((await revoke(revocation, agentId)).status).toBeLessThan(300);
    const byUrl = await proto([
      'verify',
      '--json',
      '--revocation-list',
      revocation.listUrl,
      '--revocation-key',
      listKey,
      bundleFile,
    ]);
    expect(byUrl.code).toBe(1);
    const json = JSON.parse(byUrl.stdout) as {
      verified: boolean;
      error_details: { code: string; check: string }[];
    };
    expect(json.verified).toBe(false);
    expect(json.error_details).toContainEqual(
      expect.objectContaining({ code: 'PROTO-E300', check: 'revocation' }),
    );

    const listFile = `${work.dir}/list.json`;
    writeFileSync(listFile, await (await fetch(revocation.listUrl)).text());
    const byFile = await proto([
      'verify',
      '--json',
      '--revocation-list',
      listFile,
      '--revocation-key',
      listKey,
      bundleFile,
    ]);
    expect(byFile.code).toBe(1);
    expect(JSON.parse(byFile.stdout)).toMatchObject({ verified: false, checks: { revocation: 'fail' } });
  });

  it('answers 2 naming the file and why when an evidence file cannot be read (as every other input)', async () => {
    for (const [option, extra] of [
      ['--revocation-list', ['--revocation-key', listKey]],
      ['--attestation', ['--attestation-key', listKey]],
      ['--receipt', []],
    ] as const) {
      const absent = `${work.dir}/absent${option}.json`;
      const run = await proto(['verify', option, absent, ...extra, bundleFile]);
      expect(run.code, option).toBe(2);
      expect(run.stderr, option).toContain(`${absent}: cannot read file: no such file`);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('answers 2 with a message, not a crash, when the list cannot be fetched', async () => {
    const run = await proto([
      'verify',
      '--revocation-list',
      'http://127.0.0.1:1/list.json',
      '--revocation-key',
      listKey,
      '--timeout',
      '2000',
      bundleFile,
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/127\.0\.0\.1:1/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
