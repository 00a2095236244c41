// `proto revocation verify` inside the CLI package, on lists signed here (no service): a verified list, an
// agent it revokes, a key that did not sign it, a stale list, a rollback, and bad usage. DECISIONS D20.
import { writeFileSync } from 'node:fs';
import { signRevocationList } from '@proto/core';
import { at, sampleList, T0, testKey } from '@proto/core/testing';
import { tempDirSync } from '@proto/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess } from './run-in-process.ts';

const work = tempDirSync('cli-revocation');
afterAll(() => work.remove());

const signer = testKey(7);
const stranger = testKey(9);

function listFile(name: string, overrides: Parameters<typeof sampleList>[0] = {}): string {
  const signed = signRevocationList(sampleList(overrides), signer.secretKey);
  if (!signed.ok) throw new Error(signed.error.message);
  const file = `${work.dir}/${name}.json`;
  writeFileSync(file, JSON.stringify(signed.value));
  return file;
}

async function verify(...args: string[]) {
  const run = await runInProcess(['revocation', 'verify', ...args]);
  const json = run.stdout === '' ? undefined : (JSON.parse(run.stdout) as Record<string, unknown>);
  return { ...run, json };
}

const now = ['--at', at(60, T0).toISOString()];

describe('proto revocation verify (CLI package)', () => {
  it('verifies a list its key signed: exit 0, the list fields, an agent it does not revoke', async () => {
    const run = await verify(listFile('ok'), '--key', signer.publicKeyB64, '--agent', 'agent:clean', ...now);
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({
      verified: true,
      list_number: 7,
      issuer: 'did:web:revocation.example.fr',
      jurisdiction: 'FR',
      entries: 1,
    });
    expect(JSON.stringify(run.json?.['agents'])).toContain('agent:clean');
    expect(JSON.stringify(run.json?.['agents'])).not.toContain('"revoked":true');
  });

  it('exits 1 for an agent the list revokes', async () => {
    const run = await verify(
      listFile('revoked'),
      '--key',
      signer.publicKeyB64,
      '--agent',
      'agent:revoked-1',
      ...now,
    );
    expect(run.code).toBe(1);
    expect(run.json?.['verified']).toBe(true);
    expect(JSON.stringify(run.json?.['agents'])).toContain('"revoked":true');
  });

  it('exits 1, not verified, when no trusted key signed the list', async () => {
    const run = await verify(listFile('untrusted'), '--key', stranger.publicKeyB64, ...now);
    expect(run.code).toBe(1);
    expect(run.json?.['verified']).toBe(false);
    expect(run.json?.['error']).toBeDefined();
  });

  it('exits 1 for a stale list and for a rollback below --min-list-number', async () => {
    const file = listFile('aging');
    const stale = await verify(file, '--key', signer.publicKeyB64, '--at', at(3 * 86_400, T0).toISOString());
    expect(stale.code).toBe(1);
    expect(stale.json?.['verified']).toBe(false);
    expect(JSON.stringify(stale.json?.['error'])).toMatch(/stale|next_update/i);
    const rollback = await verify(file, '--key', signer.publicKeyB64, '--min-list-number', '8', ...now);
    expect(rollback.code).toBe(1);
    expect(rollback.json?.['verified']).toBe(false);
    expect(JSON.stringify(rollback.json?.['error'])).toMatch(/rollback|list_number/i);
  });

  it('exits 2 without --key or with a bad --min-list-number', async () => {
    const file = listFile('usage');
    expect((await verify(file, ...now)).code).toBe(2);
    expect((await verify(file, '--key', signer.publicKeyB64, '--min-list-number', '-1', ...now)).code).toBe(
      2,
    );
  });
});
