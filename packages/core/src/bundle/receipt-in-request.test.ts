// P386 (P380's rule in core): `verify(request)`, core's offline verdict, fails a request's `anchor_receipt` that the
// bundle's own hashes contradict (another bundle's hash, a receipt reporting `failed`), as POST /verify with no anchor
// sources and `proto verify` do; a receipt nothing in hand contradicts stays `skipped`, said to be unchecked.
import { describe, expect, it } from 'vitest';
import { buildSignedBundle } from './build/index.ts';
import { createVerifier } from './verifier.ts';

const built = buildSignedBundle({ tier: 'routine', entries: 2 });
const other = buildSignedBundle({ tier: 'routine', entries: 2 });
const verifier = (() => {
  const made = createVerifier({});
  if (!made.ok) throw new Error(made.error.message);
  return made.value;
})();
const logReceipt = (bundleHash: string, status = 'confirmed') => ({
  log_url: 'https://log.example/',
  bundle_hash: bundleHash,
  log_index: 0,
  merkle_proof: [],
  status,
});

describe('verify(request) with an anchor_receipt (P386)', () => {
  it.each([
    ['another bundle’s receipt', logReceipt(other.bundleHash)],
    ['a receipt reporting a failed anchor', logReceipt(built.bundleHash, 'failed')],
    ['a malformed receipt', { bundle_hash: 'sha256:zz' }],
  ])('%s: not verified, anchor fail, E202 or E002', (_what, receipt) => {
    const answer = verifier.verify({ signed_bundle: built.signed_bundle, anchor_receipt: receipt });
    expect(answer.verified).toBe(false);
    expect(answer.checks.anchor).toBe('fail');
    expect(answer.error_details?.map((d) => [d.check, d.code])).toEqual([
      ['anchor', expect.stringMatching(/^PROTO-E(202|002)$/)],
    ]);
  });

  it('its own receipt: verified, anchor skipped and said to be unchecked (control)', () => {
    const answer = verifier.verify({
      signed_bundle: built.signed_bundle,
      anchor_receipt: logReceipt(built.bundleHash),
    });
    expect(answer.verified).toBe(true);
    expect(answer.checks.anchor).toBe('skipped');
    expect(answer.warnings).toEqual(
      expect.arrayContaining([expect.stringMatching(/^anchor_receipt not checked: /)]),
    );
  });

  it('no receipt: the answer is as before (control)', () => {
    const answer = verifier.verify({ signed_bundle: built.signed_bundle });
    expect(answer.verified).toBe(true);
    expect(answer.checks.anchor).toBe('skipped');
    expect(answer.warnings?.some((w) => w.startsWith('anchor_receipt'))).toBeFalsy();
  });
});
