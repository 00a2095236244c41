// P247 in the real verify page (Chromium, real verification service in-process): the bundle hash the page computes,
// shows and looks up in the log is the bundle's as signed, whatever members no signature covers were added, the one
// the service (services/verification/test/hostile/bundle-hash-uncovered.test.ts) and `proto hash`
// (packages/cli/src/hash-uncovered.test.ts) give the same fixture.
import { describe, expect, it } from 'vitest';
import { uncoveredMemberBundle } from '../../packages/core/src/bundle/uncovered-fixture.ts';
import { useVerifyPage, verifyInPage } from './verify-page.ts';

const setup = useVerifyPage();

describe('P247: the page hashes a V2 bundle as signed', () => {
  it('shows the hash of the bundle as signed for a bundle with uncovered members', async () => {
    const fixture = uncoveredMemberBundle();
    const { page, pageErrors } = await verifyInPage(setup, fixture.withMembers);
    await page.waitForSelector('#bundle-hash');
    expect(await page.textContent('#bundle-hash')).toBe(fixture.bundleHash);
    expect(pageErrors).toEqual([]);
  });
});
