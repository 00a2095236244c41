// P247 over HTTP against the real verification service: the hash it gives a V2 bundle (the evidence the key
// directory names, the subject of an anchor receipt or log look-up) is the bundle's as signed, whatever members no
// signature covers were added; `proto hash` (packages/cli/src/hash-uncovered.test.ts) and the console
// (test/browser/console-hash-uncovered.test.ts) give the same one for the same fixture.
import { uncoveredMemberBundle } from '@proto/core/testing';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyOnceItAnswers } from '../../src/test-support.ts';
import { startVerifierWithRecords, type VerifierWithRecords } from './verifier-with-records.ts';

describe.each(dialectsUnderTest().slice(0, 1))(
  'P247: the service hashes a bundle as signed, on %s',
  (dialect) => {
    let verifier: VerifierWithRecords;
    beforeAll(async () => {
      verifier = await startVerifierWithRecords(dialect, 'v2-hash-uncovered', {
        VERIFICATION_CACHE_MAX_ENTRIES: '0',
      });
    });
    afterAll(() => verifier?.close());

    it('the key directory names the hash of the bundle as signed, not of the members added to it', async () => {
      const fixture = uncoveredMemberBundle();
      const answer = await verifier.post('/verify', { signed_bundle: fixture.withMembers });
      expect(answer.json['verified'], JSON.stringify(answer.json)).toBe(true);
      expect(JSON.stringify(answer.json['warnings'])).toContain('signed_bundle.bundle.note');
      const keys = await keyOnceItAnswers(verifier.url, fixture.agentKid);
      const body = (await keys.json()) as { bindings: { evidence: string }[] };
      expect(
        body.bindings.map((b) => b.evidence),
        JSON.stringify(body),
      ).toEqual([fixture.bundleHash]);
    });
  },
);
