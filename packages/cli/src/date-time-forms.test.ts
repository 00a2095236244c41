// Every form of a date-time the schemas accept is read as the instant it names (P222). `+05` passes the schemas
// (ajv-formats' full check, upstream's too) but Date.parse calls it NaN, so a key or principal record valid until
// such a time failed as "unreadable" or "expired"; and a space for the `T` went to Date.parse's legacy parser,
// which reads the years 0000–0049 as 2000–2049, so a key that expired in the year 49 still verified. The real CLI
// process verifies the bundles.
import { tempDirSync } from '@proto/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleFileExpiringAt, runCli } from './test-support.ts';

const work = tempDirSync('cli-date-time-forms');
afterAll(() => work.remove());

interface Verdict {
  readonly verified: boolean;
  readonly error_details?: readonly { readonly check: string; readonly message: string }[];
}

/** The real CLI's verdict on a bundle whose principal record and agent keys expire at `expiresAt`. */
async function verifyExpiringAt(name: string, expiresAt: string) {
  const run = await runCli(['verify', '--json', bundleFileExpiringAt(work.dir, name, expiresAt)]);
  return { code: run.code, verdict: JSON.parse(run.stdout) as Verdict, stderr: run.stderr };
}

describe('P222: expires_at in each form of a schema date-time', { timeout: 60_000 }, () => {
  it.each([
    ['hours-only', '2099-12-31T12:00:00+05'],
    ['hours-only-space', '2099-12-31 12:00:00-05'],
    ['no-colon', '2099-12-31T12:00:00+0530'],
  ])('%s (%s), years away, is not expired', async (name, at) => {
    const run = await verifyExpiringAt(`future-${name}`, at);
    expect(run.verdict.error_details ?? [], run.stderr).toEqual([]);
    expect(run.verdict.verified).toBe(true);
    expect(run.code).toBe(0);
  });

  it.each([
    ['space', '0049-06-30 12:00:00Z'],
    ['no-colon', '0049-06-30T12:00:00+0000'],
  ])('%s (%s), in the year 49, is expired, not read as 2049', async (name, at) => {
    const run = await verifyExpiringAt(`past-${name}`, at);
    expect(run.verdict.verified, run.stderr).toBe(false);
    expect(run.verdict.error_details?.map((d) => d.message).join('\n')).toMatch(/expired/);
    expect(run.code).toBe(1);
  });
});
