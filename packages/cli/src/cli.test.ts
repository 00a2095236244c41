// End-to-end tests of the `proto` command: the real CLI is spawned with the pinned Node; stdout,
// stderr and exit codes (0 verified/ok, 1 not verified, 2 unusable input) are what a user sees.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalBytesV1, canonicalBytesV2 } from '@proto/core';
import { type ProcessRun, runProcess, tempDirSync } from '@proto/testing';
import { afterAll, describe, expect, it } from 'vitest';
import {
  computeBundleHash,
  computeBundleHashes,
  createVerifier,
  decodeBase64Strict,
  deriveKid,
} from './core.ts';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const work = tempDirSync('cli');
const TMP = work.dir;
afterAll(() => work.remove());

type Run = ProcessRun;

/** Runs `node main.ts …args` with `input` on stdin; tests run these concurrently. */
/** Runs `node main.ts …args` with `input` on stdin; tests run these concurrently. */
function proto(args: readonly string[], input = ''): Promise<Run> {
  return runProcess(process.execPath, [MAIN, ...args], { input });
}

function json(run: Run): Record<string, unknown> {
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

function file(name: string, content: unknown): string {
  const target = path.join(TMP, name);
  writeFileSync(target, typeof content === 'string' ? content : JSON.stringify(content));
  return target;
}

async function built(args: readonly string[]): Promise<Record<string, unknown>> {
  const run = await proto(['build', ...args]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return json(run);
}

const standard = await built(['--entries', '2']);
const standardFile = file('standard.json', standard);

describe.concurrent('proto (top level)', () => {
  it('--help lists every command and exits 0', async () => {
    const run = await proto(['--help']);
    expect(run.code).toBe(0);
    for (const name of ['verify', 'build', 'hash', 'keygen']) expect(run.stdout).toContain(`  ${name}`);
    expect(run.stderr).toBe('');
  });

  it('no command prints the usage on stderr and exits 2', async () => {
    const run = await proto([]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Usage: proto <command>');
  });

  it('an unknown command exits 2 with usage', async () => {
    const run = await proto(['frobnicate']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown command 'frobnicate'");
    expect(run.stderr).toContain('Commands:');
  });

  it('an unknown top-level option exits 2', async () => {
    const run = await proto(['--frob']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown option '--frob'");
  });

  it.each(['verify', 'build', 'hash', 'keygen'])(
    '%s --help prints that command’s usage and exits 0',
    async (name) => {
      for (const args of [
        [name, '--help'],
        [name, '-h'],
        ['help', name],
      ]) {
        const run = await proto(args);
        expect(run.code).toBe(0);
        expect(run.stdout).toContain(`Usage: proto ${name}`);
        expect(run.stderr).toBe('');
      }
    },
  );

  it('an unknown option of a command exits 2 and names it, with the command usage', async () => {
    const run = await proto(['verify', standardFile, '--bogus']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--bogus');
    expect(run.stderr).toContain('Usage: proto verify');
    expect(run.stdout).toBe('');
  });

  it('a missing or extra argument exits 2', async () => {
    expect((await proto(['verify'])).code).toBe(2);
    expect((await proto(['hash', 'a', 'b'])).stderr).toContain('expected 1 argument, got 2');
    expect((await proto(['keygen', 'extra'])).code).toBe(2);
  });
});

describe('proto build | proto verify -', () => {
  it('the sample elevated bundle verifies through a real pipe (exit 0)', async () => {
    const command = `"${process.execPath}" "${MAIN}" build --tier elevated --entries 10 | "${process.execPath}" "${MAIN}" verify -`;
    const run = spawnSync('sh', ['-c', command], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('"verified": true');
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toMatchObject({
      verified: true,
      version: '2.0',
      resolved_tier: 'elevated',
    });
  });
});

describe.concurrent('proto build', () => {
  it('--emergency-secret puts the SHA-256 of the secret into the signed passport (PROTOCOL §9.5)', async () => {
    const secret = 'ab'.repeat(32);
    const bundle = (await built(['--emergency-secret', secret]))['bundle'] as Record<
      string,
      Record<string, unknown>
    >;
    const passport = bundle['agent_passport']?.['payload'] as Record<string, unknown>;
    const digest = createHash('sha256').update(Buffer.from(secret, 'hex')).digest('hex');
    expect(passport['emergency_revocation_token']).toBe(`sha256:${digest}`);
    const bad = await proto(['build', '--emergency-secret', 'xyz']);
    expect(bad.code).toBe(2);
  });

  it('defaults to a V2 standard bundle in the spec shape with 3 entries', async () => {
    const bundle = standard['bundle'] as Record<string, unknown>;
    expect(bundle['dcp_bundle_version']).toBe('2.0');
    expect(bundle['manifest']).toHaveProperty('dcp_bundle_version', '2.0');
    const intent = (bundle['intent'] as Record<string, Record<string, unknown>>)['payload'];
    expect(intent?.['security_tier']).toBe('standard');
    expect((await built([]))['bundle']).toHaveProperty('audit_entries.length', 3);
    expect(bundle['audit_entries']).toHaveLength(2);
  });

  it('--profile dcp-ai builds the sdk shape; --shape overrides', async () => {
    const sdk = await built(['--profile', 'dcp-ai', '--tier', 'routine']);
    expect((sdk['bundle'] as Record<string, unknown>)['manifest']).toHaveProperty(
      'canonicalization_profile',
      'dcp-jcs-v1',
    );
    expect(sdk['signature']).toHaveProperty('signer');
    const spec = await built(['--profile', 'dcp-ai', '--shape', 'spec']);
    expect(Object.keys(spec['signature'] as object).sort()).toEqual(['composite_sig', 'manifest_hash']);
  });

  it('--classical-only signs with Ed25519 only', async () => {
    const bundle = await built(['--classical-only', '--tier', 'routine']);
    expect((bundle['signature'] as Record<string, Record<string, unknown>>)['composite_sig']).toMatchObject({
      pq: null,
      binding: 'classical_only',
    });
    const run = await proto(['verify', file('classical.json', bundle), '--mode', 'classical_only']);
    expect(run.code).toBe(0);
    expect(json(run)).toMatchObject({ verified: true, resolved_tier: 'routine' });
  });

  it('--v1 builds a V1 bundle that verifies', async () => {
    const bundle = await built(['--v1', '--entries', '2']);
    expect(bundle['signature']).toHaveProperty('sig_b64');
    expect(bundle['signature']).toHaveProperty('signer.public_key_b64');
    const run = await proto(['verify', '-'], JSON.stringify(bundle));
    expect(run.code).toBe(0);
    expect(json(run)).toMatchObject({ verified: true, version: '1.0' });
  });

  it.each([
    [['--tier', 'extreme'], '--tier must be one of routine, standard, elevated, maximum'],
    [['--entries', '0'], '--entries must be a whole number from 1 to 10000'],
    [['--entries', 'ten'], '--entries must be a whole number'],
    [['--profile', 'other'], '--profile must be proto or dcp-ai'],
    [['--shape', 'cbor'], '--shape must be spec or sdk'],
    [['--v1', '--shape', 'sdk'], '--shape applies to V2 bundles only'],
    [['--v1', '--classical-only'], '--classical-only applies to V2 bundles only'],
    [['--entries'], 'argument missing'],
  ])('%j exits 2: %s', async (args, message) => {
    const run = await proto(['build', ...args]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
  });
});

describe.concurrent('proto verify', () => {
  const AT = '2026-12-01T00:00:00.000Z';

  it('prints exactly the /verify response of createVerifier (2-space JSON) for the same settings', async () => {
    const at = new Date(Date.now() + 60_000);
    const run = await proto(['verify', standardFile, '--mode', 'hybrid_required', '--at', at.toISOString()]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    const verifier = createVerifier({ mode: 'hybrid_required', clock: () => at });
    if (!verifier.ok) throw new Error(verifier.error.message);
    const expected = verifier.value.verify({ signed_bundle: standard });
    expect(run.stdout).toBe(`${JSON.stringify(expected, null, 2)}\n`);
  });

  it('accepts a /verify request body {signed_bundle}', async () => {
    const run = await proto(['verify', file('request.json', { signed_bundle: standard })]);
    expect(run.code).toBe(0);
    expect(json(run)['verified']).toBe(true);
  });

  it('exits 1 with the failing check for a tampered bundle', async () => {
    const tampered = structuredClone(standard) as {
      bundle: { audit_entries: Array<Record<string, unknown>> };
    };
    const entry = tampered.bundle.audit_entries[1];
    if (entry) entry['outcome'] = 'rewritten';
    const run = await proto(['verify', '-'], JSON.stringify(tampered));
    expect(run.code).toBe(1);
    const response = json(run);
    expect(response['verified']).toBe(false);
    expect(response['errors']).toEqual(expect.arrayContaining([expect.any(String)]));
    expect(response['checks']).toMatchObject({ manifest_integrity: 'fail' });
    expect(run.stderr).toBe('');
  });

  it('--at after session_expires_at: not verified (session expired)', async () => {
    const run = await proto(['verify', standardFile, '--at', AT]);
    expect(run.code).toBe(1);
    expect(JSON.stringify(json(run)['error_details'])).toContain('PROTO-E501');
  });

  it('--profile selects the signing contexts and the error-code prefix', async () => {
    const dcp = file('dcp.json', await built(['--profile', 'dcp-ai']));
    expect((await proto(['verify', dcp, '--profile', 'dcp-ai'])).code).toBe(0);
    const wrong = await proto(['verify', dcp]);
    expect(wrong.code).toBe(1);
    expect(JSON.stringify(json(wrong)['error_details'])).toContain('PROTO-E1');
    const underDcp = await proto(['verify', standardFile, '--profile', 'dcp-ai']);
    expect(underDcp.code).toBe(1);
    expect(JSON.stringify(json(underDcp)['error_details'])).toContain('DCP-E1');
  });

  it('--policy raises the tier through risk_overrides', async () => {
    const policy = file('policy.json', {
      default_mode: 'hybrid_preferred',
      risk_overrides: { low: 'classical_only', medium: 'hybrid_required', high: 'hybrid_required' },
      min_accepted_version: '1.0',
      accepted_algorithms: { signing: ['ed25519', 'ml-dsa-65'], hash: ['sha256', 'sha3-256'] },
    });
    const run = await proto(['verify', standardFile, '--policy', policy]);
    expect(run.code).toBe(0);
    expect(json(run)['resolved_tier']).toBe('elevated');
  });

  it('--key supplies the V1 public key when the bundle has none', async () => {
    const v1 = await built(['--v1']);
    const signer = (v1['signature'] as Record<string, Record<string, unknown>>)['signer'] as Record<
      string,
      unknown
    >;
    const key = String(signer['public_key_b64']);
    delete signer['public_key_b64'];
    const target = file('v1-nokey.json', v1);
    expect((await proto(['verify', target])).code).toBe(1);
    const run = await proto(['verify', target, '--key', key]);
    expect(run.code).toBe(0);
    expect(json(run)).toMatchObject({ verified: true, version: '1.0' });
  });

  it('a file that does not exist: exit 2, stderr names the file and the problem', async () => {
    const missing = path.join(TMP, 'nope.json');
    const run = await proto(['verify', missing]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(missing);
    expect(run.stderr).toContain('no such file');
  });

  it('invalid JSON: exit 2, stderr names the file and says invalid JSON', async () => {
    const broken = file('broken.json', '{"bundle": ');
    const run = await proto(['verify', broken]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${broken}: invalid JSON`);
    const stdin = await proto(['verify', '-'], 'not json');
    expect(stdin.code).toBe(2);
    expect(stdin.stderr).toContain('<stdin>: invalid JSON');
  });

  it('empty input and non-object JSON: exit 2', async () => {
    expect((await proto(['verify', '-'], '')).stderr).toContain('<stdin>: invalid JSON: empty input');
    const array = await proto(['verify', '-'], '[1, 2]');
    expect(array.code).toBe(2);
    expect(array.stderr).toContain('expected a signed bundle or a /verify request object, got an array');
  });

  it.each([
    [
      ['--mode', 'quantum'],
      '--mode must be one of classical_only, hybrid_preferred, hybrid_required, pq_only',
    ],
    [['--profile', 'x'], '--profile must be proto or dcp-ai'],
    [['--key', 'not base64!'], '--key must be standard padded base64'],
    [['--at', 'yesterday'], '--at must be an ISO 8601 time'],
  ])('bad option %j: exit 2 with %s', async (args, message) => {
    const run = await proto(['verify', standardFile, ...args]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
  });

  it('an invalid policy file: exit 2 naming the file', async () => {
    const policy = file('bad-policy.json', { default_mode: 'sometimes' });
    const run = await proto(['verify', standardFile, '--policy', policy]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(policy);
    const missing = await proto(['verify', standardFile, '--policy', path.join(TMP, 'absent-policy.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('absent-policy.json: cannot read file: no such file');
  });
});

describe.concurrent('proto hash', () => {
  it('V2: bundle hash = computeBundleHash, manifest hash = signature.manifest_hash', async () => {
    const run = await proto(['hash', standardFile]);
    expect(run.code).toBe(0);
    const signature = standard['signature'] as Record<string, unknown>;
    expect(json(run)).toEqual({
      version: '2.0',
      bundle_hash: (computeBundleHash(standard) as { value: string }).value,
      bundle_hash_secondary: (computeBundleHashes(standard) as { value: { bundleHashSecondary: string } })
        .value.bundleHashSecondary,
      manifest_hash: signature['manifest_hash'],
    });
    // P62: SHA3-256 of the same bytes as bundle_hash: jcs({bundle, signature}).
    const canonical = canonicalBytesV2({ bundle: standard['bundle'], signature: standard['signature'] });
    expect(canonical.ok && json(run)['bundle_hash_secondary']).toBe(
      `sha3-256:${createHash('sha3-256')
        .update((canonical as { value: Uint8Array }).value)
        .digest('hex')}`,
    );
  });

  it('V1: recomputes bundle_hash (equal to the signed value) and accepts a request body on stdin', async () => {
    const v1 = await built(['--v1']);
    const run = await proto(['hash', '-'], JSON.stringify({ signed_bundle: v1 }));
    expect(run.code).toBe(0);
    const v1Canonical = canonicalBytesV1(v1['bundle']);
    expect(json(run)).toEqual({
      version: '1.0',
      bundle_hash: (v1['signature'] as Record<string, unknown>)['bundle_hash'],
      bundle_hash_secondary: `sha3-256:${createHash('sha3-256')
        .update((v1Canonical as { value: Uint8Array }).value)
        .digest('hex')}`,
    });
  });

  it('recomputes rather than copies: a tampered V1 bundle hashes differently from its bundle_hash', async () => {
    const v1 = (await built(['--v1'])) as {
      bundle: { intent: Record<string, unknown> };
      signature: Record<string, unknown>;
    };
    v1.bundle.intent['estimated_impact'] = 'high';
    const run = await proto(['hash', file('v1-tampered.json', v1)]);
    expect(json(run)['bundle_hash']).not.toBe(v1.signature['bundle_hash']);
  });

  it('unusable input exits 2: not a bundle, a float in a V2 bundle', async () => {
    const notBundle = await proto(['hash', '-'], '{"hello": 1}');
    expect(notBundle.code).toBe(2);
    expect(notBundle.stderr).toContain('<stdin>: expected a signed bundle');
    const withFloat = structuredClone(standard) as {
      bundle: { policy_decision: { payload: Record<string, unknown> } };
    };
    withFloat.bundle.policy_decision.payload['risk_score'] = 0.5;
    const run = await proto(['hash', file('float.json', withFloat)]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('cannot hash the bundle');
  });
});

describe.concurrent('proto keygen', () => {
  it.each([
    [[], 'ed25519', 32, 64],
    [['--alg', 'ml-dsa-65'], 'ml-dsa-65', 1952, 4032],
  ] as const)('%j → %s key pair with derived kid', async (args, alg, publicLength, secretLength) => {
    const run = await proto(['keygen', ...args]);
    expect(run.code).toBe(0);
    const key = json(run);
    expect(Object.keys(key).sort()).toEqual(['alg', 'kid', 'public_key_b64', 'secret_key_b64']);
    expect(key['alg']).toBe(alg);
    const publicKey = decodeBase64Strict(String(key['public_key_b64']));
    expect(publicKey?.length).toBe(publicLength);
    expect(decodeBase64Strict(String(key['secret_key_b64']))?.length).toBe(secretLength);
    expect(key['kid']).toBe(deriveKid(alg, publicKey as Uint8Array));
  });

  it('an unknown algorithm exits 2', async () => {
    const run = await proto(['keygen', '--alg', 'rsa']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--alg must be ed25519 or ml-dsa-65, got 'rsa'");
  });
});
