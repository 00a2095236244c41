// P501: two answers for the same stranger's passport, the second arriving while the first is still being applied to
// the key directory. The feeder used to answer the second at once ("applied lately"), before the store had said that
// the passport was foreign to its agent, so one of the two answers carried no warning. The store here is real
// (SQLite and PostgreSQL); its application is held back a little so that the two overlap.
import { borrowedRprBundle } from '@proto/core/testing';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Json } from '../../src/records/test-support.ts';
import {
  holdApplications,
  startVerifierOnHeldStore,
  type VerifierOnHeldStore,
} from './verifier-on-held-store.ts';
import { verifyAnswer } from './verify-both-wires.ts';

/** Well under the feeder's APPLY_WAIT_MS (1 s), so both answers may wait for it. */
const HELD_MS = 400;

describe.each(dialectsUnderTest())('P501: the same foreign passport twice at once, %s', (dialect) => {
  let service: VerifierOnHeldStore;
  const fixture = borrowedRprBundle();

  beforeAll(async () => {
    service = await startVerifierOnHeldStore(
      dialect,
      'foreign-concurrent',
      { VERIFICATION_CACHE_MAX_ENTRIES: '0' },
      (store) => {
        holdApplications(store, HELD_MS);
        return undefined;
      },
    );
  });
  afterAll(() => service?.close());

  const verify = (signed: Json) => verifyAnswer(service.url, '/verify', { signed_bundle: signed }, 'json');

  it('both answers carry the warning', async () => {
    expect((await verify(fixture.victim.signed_bundle))['verified']).toBe(true);
    const answers = await Promise.all([verify(fixture.stranger), verify(fixture.stranger)]);
    for (const json of answers) {
      expect(json['verified'], JSON.stringify(json)).toBe(true);
      const warnings = ((json['warnings'] as string[] | undefined) ?? []).filter((w) =>
        w.includes('key directory binds'),
      );
      expect(warnings, JSON.stringify(json)).toHaveLength(1);
    }
  });
});
