// `proto revocation verify` and `proto attestation verify` on documents served by the running service:
// exit codes, JSON output and refusals, all offline. DECISIONS D20, D21.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '@proto/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, JURISDICTION, type RunningService, revoke, startService, tempDir } from './test-support.ts';

let service: RunningService;
const dir = tempDir('cli');
let listFile: string;
let attestationFile: string;
let keysFile: string;
let listKey: string;
let attestationKey: string;

async function proto(
  ...argv: string[]
): Promise<{ code: number; out: Record<string, unknown>; err: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    readStdin: async () => '',
  });
  return { code, out: stdout === '' ? {} : (JSON.parse(stdout) as Record<string, unknown>), err: stderr };
}

beforeAll(async () => {
  service = await startService({ dataDir: dir.dir });
  await revoke(service, 'agent:cli-revoked');
  const listText = await (await fetch(service.listUrl)).text();
  listFile = join(dir.dir, 'list.json');
  writeFileSync(listFile, listText);
  listKey = (JSON.parse(listText) as { signature: { public_key_b64: string } }).signature.public_key_b64;
  const attested = await call(service, 'POST', '/attest', {
    agent_id: 'agent:cli-ok',
    rpr_hash: `sha256:${'c1'.repeat(32)}`,
  });
  attestationFile = join(dir.dir, 'attestation.json');
  writeFileSync(attestationFile, JSON.stringify(attested.json));
  const keysText = await (await fetch(`${service.url}/.well-known/proto-attestation-keys.json`)).text();
  keysFile = join(dir.dir, 'keys.json');
  writeFileSync(keysFile, keysText);
  attestationKey = (JSON.parse(keysText) as { keys: { public_key_b64: string }[] }).keys[0]!.public_key_b64;
});
afterAll(async () => {
  await service?.close();
  dir.remove();
});

describe('proto revocation verify', () => {
  it('verifies the served list and reports a revoked agent with exit 1', async () => {
    const ok = await proto(
      'revocation',
      'verify',
      listFile,
      '--key',
      listKey,
      '--jurisdiction',
      JURISDICTION,
    );
    expect(ok.code).toBe(0);
    expect(ok.out).toMatchObject({
      verified: true,
      jurisdiction: JURISDICTION,
      entries: 1,
      list_number: expect.any(Number),
    });
    const revoked = await proto(
      'revocation',
      'verify',
      listFile,
      '--key',
      listKey,
      '--agent',
      'agent:cli-revoked',
      '--agent',
      'agent:other',
    );
    expect(revoked.code).toBe(1);
    expect(revoked.out['agents']).toEqual([
      {
        agent_id: 'agent:cli-revoked',
        revoked: true,
        entry: expect.objectContaining({ agent_id: 'agent:cli-revoked' }),
      },
      { agent_id: 'agent:other', revoked: false },
    ]);
    const clean = await proto('revocation', 'verify', listFile, '--key', listKey, '--agent', 'agent:other');
    expect(clean.code).toBe(0);
  });

  it('refuses an untrusted key, a stale list and a rollback with exit 1 and a coded error', async () => {
    const untrusted = await proto('revocation', 'verify', listFile, '--key', attestationKey);
    expect(untrusted.code).toBe(1);
    expect(untrusted.out['error']).toMatchObject({ code: 'PROTO-E100', reason: 'untrusted_key' });
    const stale = await proto(
      'revocation',
      'verify',
      listFile,
      '--key',
      listKey,
      '--at',
      new Date(Date.now() + 2 * 86_400_000).toISOString(),
    );
    expect(stale.out['error']).toMatchObject({ code: 'PROTO-E104', reason: 'stale' });
    const rollback = await proto(
      'revocation',
      'verify',
      listFile,
      '--key',
      listKey,
      '--min-list-number',
      '999',
    );
    expect(rollback.out['error']).toMatchObject({ code: 'PROTO-E503', reason: 'rollback' });
  });

  it('answers bad usage with exit 2', async () => {
    expect((await proto('revocation', 'verify', listFile)).code).toBe(2);
    expect((await proto('revocation', 'check', listFile, '--key', listKey)).code).toBe(2);
    expect((await proto('revocation', 'verify', join(dir.dir, 'missing.json'), '--key', listKey)).code).toBe(
      2,
    );
  });
});

describe('proto attestation verify', () => {
  it('verifies with --key or the keys document, and checks --rpr-hash', async () => {
    const ok = await proto(
      'attestation',
      'verify',
      attestationFile,
      '--key',
      attestationKey,
      '--rpr-hash',
      `sha256:${'c1'.repeat(32)}`,
    );
    expect(ok.code).toBe(0);
    expect(ok.out).toMatchObject({ verified: true, agent_id: 'agent:cli-ok', jurisdiction: JURISDICTION });
    expect((await proto('attestation', 'verify', attestationFile, '--keys', keysFile)).code).toBe(0);
    const wrong = await proto(
      'attestation',
      'verify',
      attestationFile,
      '--key',
      attestationKey,
      '--rpr-hash',
      `sha256:${'00'.repeat(32)}`,
    );
    expect(wrong.code).toBe(1);
    expect(wrong.out['error']).toMatchObject({ code: 'PROTO-E304', reason: 'rpr_mismatch' });
  });

  it('refuses an expired attestation and an untrusted key', async () => {
    const later = new Date(Date.now() + 31 * 86_400_000).toISOString();
    const expired = await proto(
      'attestation',
      'verify',
      attestationFile,
      '--key',
      attestationKey,
      '--at',
      later,
    );
    expect(expired.out['error']).toMatchObject({ reason: 'expired' });
    const untrusted = await proto('attestation', 'verify', attestationFile, '--key', listKey);
    expect([untrusted.code, (untrusted.out['error'] as Record<string, unknown>)['reason']]).toEqual([
      1,
      'untrusted_key',
    ]);
    expect((await proto('attestation', 'verify', attestationFile)).code).toBe(2);
  });
});
