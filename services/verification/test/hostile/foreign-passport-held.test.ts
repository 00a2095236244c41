// P555 (refines P501, P503): the warning that a known agent's passport is signed by keys the key directory does not
// bind to it used to come from the feeder's outcome of applying that very passport. Two ways lost it, both replayed
// here over HTTP against the real service on a real store of each dialect:
// - a slow store: the application took longer than the feeder's wait (APPLY_WAIT_MS, 1 s), so the answer went out
//   before the store had said "foreign" (the store layer's `applyPassport` is held back 1.5 s);
// - a cleared map: the feeder forgets the passports it applied once it holds 10,000 (here: one, a real feeder with a
//   small map), and a verification thread hands a passport seen within the minute over by its evidence alone
//   (P229), so the stranger's bundle sent again was answered with nothing to look up.
// The warning now comes from what the directory holds for the agent, read on its own (cached).
import type { BuiltBundle } from '@proto/core';
import { borrowedRprBundle } from '@proto/core/testing';
import { dialectsUnderTest } from '@proto/store/testing';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyBindingFeeder } from '../../src/records/key-binding-feeder.ts';
import type { Json } from '../../src/records/test-support.ts';
import { keyOnceItAnswers } from '../../src/test-support.ts';
import {
  holdApplications,
  startVerifierOnHeldStore,
  type VerifierOnHeldStore,
} from './verifier-on-held-store.ts';
import { type VerifyPath, verifyAnswer, type WireFormat } from './verify-both-wires.ts';

/** Past the feeder's APPLY_WAIT_MS (1 s): every first application of a passport outlasts its answer's wait. */
const HELD_MS = 1_500;

const SOME_ROUTES: readonly (readonly [VerifyPath, WireFormat])[] = [
  ['/verify', 'json'],
  ['/verify/batch', 'cbor'],
];

const foreignWarnings = (json: Json) =>
  ((json['warnings'] as string[] | undefined) ?? []).filter((w) => w.includes('key directory binds'));

/** A victim whose own bundle is verified first (its passport keys bound), and a stranger's bundle naming it. */
async function boundVictim(url: string): Promise<ReturnType<typeof borrowedRprBundle>> {
  const fixture = borrowedRprBundle();
  const own = await verifyAnswer(url, '/verify', { signed_bundle: fixture.victim.signed_bundle }, 'json');
  expect(own['verified'], JSON.stringify(own)).toBe(true);
  const bound = await keyOnceItAnswers(url, fixture.victim.keys.agent.classical.kid, 200);
  await bound.arrayBuffer();
  return fixture;
}

function expectWarned(json: Json, fixture: ReturnType<typeof borrowedRprBundle>, victim: BuiltBundle): void {
  expect(json['verified'], JSON.stringify(json)).toBe(true);
  const warnings = foreignWarnings(json);
  expect(warnings, JSON.stringify(json)).toHaveLength(1);
  expect(warnings[0]).toContain(`agent '${fixture.agentId}'`);
  expect(warnings[0]).toContain(victim.keys.agent.classical.kid);
}

const CACHES = [
  ['cache on', {}],
  ['cache off', { VERIFICATION_CACHE_MAX_ENTRIES: '0' }],
] as const;

describe.each(dialectsUnderTest().flatMap((d) => CACHES.map(([name, env]) => [d, name, env] as const)))(
  'P555: a slow store, %s, %s',
  (dialect, _cache, env) => {
    let service: VerifierOnHeldStore;
    beforeAll(async () => {
      service = await startVerifierOnHeldStore(dialect, 'foreign-held', { ...env }, (store) => {
        holdApplications(store, HELD_MS);
        return undefined;
      });
    });
    afterAll(() => service?.close());

    it.each(SOME_ROUTES)(
      "POST %s (%s): the stranger's first bundle, its application still held, is warned about",
      async (path, format) => {
        const fixture = await boundVictim(service.url);
        const json = await verifyAnswer(service.url, path, { signed_bundle: fixture.stranger }, format);
        expectWarned(json, fixture, fixture.victim);
      },
    );
  },
);

describe.each(dialectsUnderTest())('P555: the feeder’s map of applied passports cleared, %s', (dialect) => {
  let service: VerifierOnHeldStore;
  beforeAll(async () => {
    // Cache off: a thread hands a passport seen within the minute over by its evidence alone (P229).
    service = await startVerifierOnHeldStore(
      dialect,
      'foreign-cleared',
      { VERIFICATION_CACHE_MAX_ENTRIES: '0' },
      (store) => [
        // The records plugin keeps a feeder already decorated: this one forgets at every new passport.
        fp(async (app: FastifyInstance) => {
          app.decorate('bundleVerified', keyBindingFeeder(store, app.log, 1));
        }),
      ],
    );
  });
  afterAll(() => service?.close());

  it.each(SOME_ROUTES)(
    "POST %s (%s): the stranger's bundle sent again after another passport is warned about",
    async (path, format) => {
      const fixture = await boundVictim(service.url);
      const first = await verifyAnswer(service.url, path, { signed_bundle: fixture.stranger }, format);
      expectWarned(first, fixture, fixture.victim);
      // Another agent's passport: the feeder's map (of one) is cleared.
      const other = borrowedRprBundle().victim.signed_bundle;
      expect((await verifyAnswer(service.url, '/verify', { signed_bundle: other }, 'json'))['verified']).toBe(
        true,
      );
      const again = await verifyAnswer(service.url, path, { signed_bundle: fixture.stranger }, format);
      expectWarned(again, fixture, fixture.victim);
    },
  );
});
