// `--at TIME` is an RFC 3339 instant, read with core's dateTimeInstant (P182, after P178; P221: what a document's
// date-time may be, a space or `+01` too): a leap second is a time the
// checks can be made as of (the next midnight, so whatever expires at it is expired), and what Date.parse reads
// loosely (a date alone, `Jan 1 2026`, `0` as the year 2000, no zone, `24:00`, 30 February) is bad usage, exit 2,
// before any input is read. The real CLI process, for every command that takes --at.
import { writeFileSync } from 'node:fs';
import { buildSignedBundle, type JsonObject } from '@proto/core';
import { tempDirSync } from '@proto/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './test-support.ts';

const work = tempDirSync('cli-at-option');
afterAll(() => work.remove());

const LEAP = '2099-12-31T23:59:60Z';

/**
 * A bundle made two hours before LEAP whose principal record and agent keys expire at that leap second, signed as
 * it stands (its session lasts past the next midnight).
 */
const leapFile = (() => {
  const built = buildSignedBundle({
    now: new Date('2099-12-31T22:00:00Z'),
    hooks: {
      payloads: (p) => {
        p.responsible_principal_record['expires_at'] = LEAP;
        for (const key of p.agent_passport['keys'] as JsonObject[]) key['expires_at'] = LEAP;
      },
    },
  });
  const file = `${work.dir}/leap.json`;
  writeFileSync(file, JSON.stringify(built.signed_bundle));
  return file;
})();

/** A bundle made now, for the forms that are accepted. */
const bundleFile = (() => {
  const file = `${work.dir}/bundle.json`;
  writeFileSync(file, JSON.stringify(buildSignedBundle().signed_bundle));
  return file;
})();

/**
 * Just now, in the forms of the schemas' date-time: a fraction, an offset, lower-case `t` and `z`; and (P221) a
 * space for the `T`, an offset of whole hours and one without its colon.
 */
function nowForms(): string[] {
  const iso = new Date(Date.now() + 1000).toISOString();
  const plusOne = new Date(Date.now() + 1000 + 3_600_000).toISOString().slice(0, 19);
  return [
    iso,
    `${plusOne}+01:00`,
    iso.replace('T', 't').replace('Z', 'z'),
    iso.replace('T', ' '),
    `${plusOne}+01`,
    `${plusOne.replace('T', ' ')}+0100`,
  ];
}

interface Verdict {
  readonly verified: boolean;
  readonly error_details?: readonly { readonly check: string; readonly message: string }[];
}

describe('P182: --at is an RFC 3339 instant', { timeout: 90_000 }, () => {
  it('a leap second is accepted: what expires at it is expired as of it, not a millisecond before', async () => {
    const before = await runCli(['verify', '--json', leapFile, '--at', '2099-12-31T23:59:59.998Z']);
    expect(before.code, before.stderr).toBe(0);
    const at = await runCli(['verify', '--json', leapFile, '--at', LEAP]);
    expect(at.code, at.stderr).toBe(1);
    const verdict = JSON.parse(at.stdout) as Verdict;
    expect(verdict.verified).toBe(false);
    expect(verdict.error_details?.map((d) => d.message).join('\n')).toMatch(/expired/);
  });

  it('the --batch workers read a leap second the same way', async () => {
    const run = await runCli(['verify', '--batch', leapFile, '--at', LEAP]);
    expect(run.code, run.stderr).toBe(1);
    const line = JSON.parse(run.stdout.trim()) as Verdict & { file: string };
    expect(line.verified).toBe(false);
    expect(line.error_details?.map((d) => d.message).join('\n')).toMatch(/expired/);
    const earlier = await runCli(['verify', '--batch', leapFile, '--at', '2099-12-31T23:59:59.998Z']);
    expect(earlier.code, earlier.stderr).toBe(0);
  });

  const loose = [
    '2026-01-01',
    'Jan 1 2026',
    '0',
    '2026-01-01T12:00:00',
    '2026-01-01T12:00:00+01:',
    '2026-01-01T24:00:00Z',
    '2026-02-30T00:00:00Z',
    '2026-06-30T12:30:60Z',
    '+002026-01-01T00:00:00Z',
  ];
  const commands: [string, string[]][] = [
    ['verify', ['verify', '--json', bundleFile]],
    ['verify --batch', ['verify', '--batch', bundleFile]],
    ['revocation verify', ['revocation', 'verify', bundleFile, '--key', 'AAAA']],
    ['attestation verify', ['attestation', 'verify', bundleFile, '--key', 'AAAA']],
  ];
  for (const [name, args] of commands) {
    // Every loose form through `verify`, which reads the option first; a sample through the others.
    const samples = name === 'verify' ? loose : ['2026-01-01', 'Jan 1 2026', '0', '2026-02-30T00:00:00Z'];
    it(`${name} refuses a loose time with exit 2 and says what it wants`, async () => {
      for (const at of samples) {
        const run = await runCli([...args, '--at', at]);
        expect(run.code, `${at}: ${run.stdout}${run.stderr}`).toBe(2);
        expect(run.stderr).toContain('--at must be an ISO 8601 time in RFC 3339 form');
        expect(run.stderr).toContain(`got '${at}'`);
        expect(run.stdout).toBe('');
      }
    });
  }

  it('the forms of a date-time are accepted: a fraction, an offset, lower-case t and z, a space, `+01`', async () => {
    for (const at of nowForms()) {
      const run = await runCli(['verify', '--json', bundleFile, '--at', at]);
      expect(run.code, `${at}: ${run.stderr}`).toBe(0);
    }
  });
});
