// A fetched document's text is fetchBounded's UTF-8 reading, not fatal (P182 item 3, kept as it was): a byte that
// is not UTF-8 becomes U+FFFD, so a signed list carrying one fails its signature check (exit 1, a verdict), where a
// fatal decoder would throw before any verdict. The real CLI process and a local front serving the bytes.
import { writeFileSync } from 'node:fs';
import { buildSignedBundle, signRevocationList } from '@proto/core';
import { sampleList, testKey } from '@proto/core/testing';
import { type HostileFront, startHostileFront, tempDirSync } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './test-support.ts';

const work = tempDirSync('cli-fetch-utf8');
const bundleFile = `${work.dir}/bundle.json`;
const signer = testKey(7);
let front: HostileFront;
let listBytes: Buffer;

beforeAll(async () => {
  writeFileSync(bundleFile, JSON.stringify(buildSignedBundle().signed_bundle));
  const signed = signRevocationList(sampleList(), signer.secretKey);
  if (!signed.ok) throw new Error(signed.error.message);
  const text = JSON.stringify(signed.value);
  const issuer = text.indexOf('revocation.example');
  if (issuer < 0) throw new Error('the sample list has no issuer to alter');
  listBytes = Buffer.from(text, 'utf8');
  // One byte of the signed issuer replaced by 0xFF, which starts no UTF-8 sequence.
  listBytes[issuer] = 0xff;
  front = await startHostileFront((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end(listBytes);
  });
});

afterAll(async () => {
  await front?.close();
  work.remove();
});

describe('P182: a fetched document is read as UTF-8 with U+FFFD for what is not', { timeout: 60_000 }, () => {
  it('a revocation list with a byte that is not UTF-8 is read, and fails its signature: exit 1', async () => {
    const run = await runCli([
      'verify',
      '--json',
      bundleFile,
      '--revocation-list',
      `${front.url}/list.json`,
      '--revocation-key',
      signer.publicKeyB64,
    ]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    const verdict = JSON.parse(run.stdout) as {
      checks: Record<string, string>;
      error_details?: { check: string; message: string }[];
    };
    expect(verdict.checks['revocation']).toBe('fail');
    expect(verdict.error_details?.find((d) => d.check === 'revocation')?.message).toMatch(/signature/);
  });
});
