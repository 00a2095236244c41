// A date-time is RFC 3339 (PROTOCOL's `date-time`, which the schemas check with ajv-formats' full check), and RFC
// 3339 has leap seconds: `…T23:59:60Z` passes the schema. Date.parse reads it as NaN, so a key or principal record
// valid until a leap second years away failed today as "expired" or "unreadable". It is the instant just before
// the next day starts; a leap second already past is still past, and `:60` anywhere but the end of a UTC day is
// still unreadable (fails closed). The real CLI process verifies the bundles. P175.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildSignedBundle, type JsonObject } from '@proto/core';
import { tempDirSync } from '@proto/testing';
import { afterAll, describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const work = tempDirSync('cli-leap-second');
afterAll(() => work.remove());

interface Verdict {
  readonly verified: boolean;
  readonly error_details?: readonly { readonly check: string; readonly message: string }[];
}

function verify(file: string): Promise<{ code: number | null; verdict: Verdict; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, 'verify', '--json', file], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code,
        verdict: JSON.parse(Buffer.concat(out).toString('utf8')) as Verdict,
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
  });
}

/** A bundle whose principal record and agent keys expire at `expiresAt`, signed as it stands. */
function bundleExpiringAt(name: string, expiresAt: string): string {
  const built = buildSignedBundle({
    hooks: {
      payloads: (p) => {
        p.responsible_principal_record['expires_at'] = expiresAt;
        for (const key of p.agent_passport['keys'] as JsonObject[]) key['expires_at'] = expiresAt;
      },
    },
  });
  const file = `${work.dir}/${name}.json`;
  writeFileSync(file, JSON.stringify(built.signed_bundle));
  return file;
}

describe('expires_at at a leap second', { timeout: 60_000 }, () => {
  it.each(['2099-12-31T23:59:60Z', '2099-12-31T23:59:60.5Z', '2100-01-01T00:59:60+01:00'])(
    '%s, years away, is not expired',
    async (at) => {
      const run = await verify(bundleExpiringAt(`future-${at.replace(/\W/g, '')}`, at));
      expect(run.verdict.error_details ?? [], run.stderr).toEqual([]);
      expect(run.verdict.verified).toBe(true);
      expect(run.code).toBe(0);
    },
  );

  it('a leap second already past is past', async () => {
    const run = await verify(bundleExpiringAt('past', '2016-12-31T23:59:60Z'));
    expect(run.verdict.verified).toBe(false);
    expect(run.verdict.error_details?.map((d) => d.message).join('\n')).toMatch(/expired/);
    expect(run.code).toBe(1);
  });
});
