// A date-time is RFC 3339 (PROTOCOL's `date-time`, which the schemas check with ajv-formats' full check), and RFC
// 3339 has leap seconds: `…T23:59:60Z` passes the schema. Date.parse reads it as NaN, so a key or principal record
// valid until a leap second years away failed today as "expired" or "unreadable". It is the instant just before
// the next day starts; a leap second already past is still past, and `:60` anywhere but the end of a UTC day is
// still unreadable (fails closed). The real CLI process verifies the bundles. P175.
// The revocation list's times read a leap second on the safe side (P178): next_update, an end, as the millisecond
// before it; updated_at, which must not lie beyond the clock skew, as the next midnight.
import { writeFileSync } from 'node:fs';
import { signRevocationList } from '@proto/core';
import { sampleList, testKey } from '@proto/core/testing';
import { tempDirSync } from '@proto/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleFileExpiringAt, runCli } from './test-support.ts';

const work = tempDirSync('cli-leap-second');
afterAll(() => work.remove());

interface Verdict {
  readonly verified: boolean;
  readonly error_details?: readonly { readonly check: string; readonly message: string }[];
}

async function verify(file: string): Promise<{ code: number | null; verdict: Verdict; stderr: string }> {
  const run = await runCli(['verify', '--json', file]);
  return { code: run.code, verdict: JSON.parse(run.stdout) as Verdict, stderr: run.stderr };
}

/** A bundle whose principal record and agent keys expire at `expiresAt`, signed as it stands. */
const bundleExpiringAt = (name: string, expiresAt: string) => bundleFileExpiringAt(work.dir, name, expiresAt);

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

const listSigner = testKey(7);

interface ListVerdict {
  readonly verified: boolean;
  readonly error?: { readonly reason: string };
}

/** The real CLI's `revocation verify --json` of a list signed with these times, as of `at`. */
async function verifyList(
  name: string,
  times: { readonly updated_at: string; readonly next_update: string },
  at: string,
): Promise<{ code: number | null; out: ListVerdict; stderr: string }> {
  const signed = signRevocationList(sampleList(times), listSigner.secretKey);
  if (!signed.ok) throw new Error(signed.error.message);
  const file = `${work.dir}/list-${name}.json`;
  writeFileSync(file, JSON.stringify(signed.value));
  const args = ['revocation', 'verify', file, '--key', listSigner.publicKeyB64, '--at', at];
  const run = await runCli(args);
  return { code: run.code, out: JSON.parse(run.stdout) as ListVerdict, stderr: run.stderr };
}

describe('a revocation list dated at a leap second', { timeout: 60_000 }, () => {
  it('next_update at a leap second: fresh up to the millisecond before it, stale from the next midnight', async () => {
    const times = { updated_at: '2026-03-01T12:00:00Z', next_update: '2026-03-01T23:59:60Z' };
    const fresh = await verifyList('next-fresh', times, '2026-03-01T23:59:59.998Z');
    expect(fresh.out, fresh.stderr).toMatchObject({ verified: true });
    expect(fresh.code).toBe(0);
    const stale = await verifyList('next-stale', times, '2026-03-02T00:00:00.000Z');
    expect(stale.out.error?.reason).toBe('stale');
    expect(stale.code).toBe(1);
  });

  it('updated_at at a leap second counts from the next midnight against the clock skew', async () => {
    const times = { updated_at: '2026-03-01T23:59:60Z', next_update: '2026-03-02T12:00:00Z' };
    const within = await verifyList('updated-within', times, '2026-03-01T23:55:00.000Z');
    expect(within.out, within.stderr).toMatchObject({ verified: true });
    expect(within.code).toBe(0);
    // Five minutes and one millisecond before the next midnight: read as 23:59:59.999 it would pass.
    const ahead = await verifyList('updated-ahead', times, '2026-03-01T23:54:59.999Z');
    expect(ahead.out.error?.reason).toBe('not_yet_valid');
    expect(ahead.code).toBe(1);
  });
});
