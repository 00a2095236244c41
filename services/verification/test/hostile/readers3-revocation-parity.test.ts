// P457 (brief "readers3" item 3, the revocation check): one list, one verdict and one message from POST /verify (the
// list as a configured REVOCATION_SOURCES source) and `proto verify --revocation-list URL --revocation-key K` (the
// same list, the real CLI spawned). The service looks up the bundle's agent id and every signer's kid in the list
// (D20, P201, P225: a revoked key signs nothing that verifies); the CLI looked up the agent id only, so a bundle whose
// signing key the list revokes was `verified: true` from the CLI and E300 from the service. And the two worded a
// revoked agent differently ("agent X is revoked in list N" against "US: X was revoked at T").
import { currentList, revoke } from '@proto/revocation/testing';
import { describe, expect, it } from 'vitest';
import { postVerify, sampleBundle } from '../../src/test-support.ts';
import { revocationListSuite } from './testing/revocation-list-verifier.ts';

const fixture = revocationListSuite('readers3-revocation');

type Answer = {
  verified: boolean;
  checks: Record<string, string>;
  error_details?: { code: string; check: string; message: string }[];
};
const gist = (a: Answer) => ({
  verified: a.verified,
  revocation: a.checks['revocation'],
  details: a.error_details?.filter((d) => d.check === 'revocation').map((d) => [d.code, d.message]),
});
async function both(signed: unknown) {
  const served = (await postVerify(fixture.verifier.url, { signed_bundle: signed }))
    .json as unknown as Answer;
  const { answer, code } = await fixture.cliVerify(signed);
  return { served, local: answer as Answer, code };
}

describe('P457: a revocation list gets one verdict and one message from the service and `proto verify`', () => {
  it('control: a bundle the list names nowhere: both pass', async () => {
    const sample = sampleBundle({ tier: 'routine' });
    const { served, local, code } = await both(sample.signed_bundle);
    expect(gist(served)).toEqual({ verified: true, revocation: 'pass', details: undefined });
    expect(gist(local)).toEqual(gist(served));
    expect(code).toBe(0);
  });

  it('a bundle whose signing key (kid) the list revokes: E300 from both, in the same words', async () => {
    const sample = sampleBundle({ tier: 'routine' });
    expect((await revoke(fixture.us, sample.keys.principal.classical.kid)).status).toBe(201);
    expect(JSON.stringify(await currentList(fixture.us))).toContain(sample.keys.principal.classical.kid);
    const { served, local, code } = await both(sample.signed_bundle);
    expect(gist(served).verified, JSON.stringify(served)).toBe(false);
    expect(gist(served).details?.[0]?.[0]).toBe('PROTO-E300');
    expect(gist(local), JSON.stringify(local)).toEqual(gist(served));
    expect(code).toBe(1);
  });

  it('a bundle whose agent the list revokes: E300 from both, in the same words', async () => {
    const sample = sampleBundle({ tier: 'routine' });
    expect((await revoke(fixture.us, sample.agentId as string)).status).toBe(201);
    const { served, local } = await both(sample.signed_bundle);
    expect(gist(served).details?.[0]?.[0]).toBe('PROTO-E300');
    expect(gist(local), JSON.stringify(local)).toEqual(gist(served));
  });
});
