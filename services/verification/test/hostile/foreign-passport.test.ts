// P501 over HTTP against the real verification service, its records mounted on a real store of each dialect: a stranger
// copies agent A's public, principal-signed RPR and makes a V2 bundle naming A with a passport of its own keys, signed
// by them. Every signature holds, so core answers `verified: true` (with P490's agent-keys-only warning, which a
// genuine SDK bundle gets too). But this service's key directory binds A's own passport keys, and the stranger's
// passport is signed by none of them (P45 continuity): the answer must say so, naming A and the kids bound here.
// POST /verify and /verify/batch, JSON and CBOR, the verification cache on and off, first sight and seen again.
import { buildSignedBundle } from '@proto/core';
import { borrowedRprBundle } from '@proto/core/testing';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVerifierWithRecords, type VerifierWithRecords } from './verifier-with-records.ts';
import { verifyAnswer as answer, ROUTES_AND_FORMATS } from './verify-both-wires.ts';

type Json = Record<string, unknown>;

const foreignWarnings = (json: Json) =>
  ((json['warnings'] as string[] | undefined) ?? []).filter((w) => w.includes('key directory binds'));

const CASES = ROUTES_AND_FORMATS;

describe.each(
  dialectsUnderTest().flatMap((dialect) => [
    [dialect, 'cache on', {}] as const,
    [dialect, 'cache off', { VERIFICATION_CACHE_MAX_ENTRIES: '0' }] as const,
  ]),
)('P501: a known agent named by a stranger’s passport, %s, %s', (dialect, _cache, env) => {
  let service: VerifierWithRecords;
  const fixture = borrowedRprBundle();
  const victimBundle = fixture.victim.signed_bundle;
  const victimKids = [
    fixture.victim.keys.agent.classical.kid,
    ...(fixture.victim.keys.agent.pq === undefined ? [] : [fixture.victim.keys.agent.pq.kid]),
  ];

  beforeAll(async () => {
    service = await startVerifierWithRecords(dialect, 'foreign-passport', {
      VERIFY_RATE_LIMIT_PER_MINUTE: '0',
      ...env,
    });
    // A's genuine bundle binds A's passport keys here.
    const genuine = await answer(service.url, '/verify', { signed_bundle: victimBundle }, 'json');
    expect(genuine['verified'], JSON.stringify(genuine)).toBe(true);
    expect(await service.keyStatusOnce(fixture.victim.keys.agent.classical.kid, 200)).toBe(200);
  });
  afterAll(() => service?.close());

  it.each(CASES)(
    "POST %s (%s): verified, warned that A's bound keys did not sign its passport",
    async (path, format) => {
      // Twice: the first sight applies the passport; the second is answered from what the feeder (and cache) kept.
      for (const round of [1, 2]) {
        const json = await answer(service.url, path, { signed_bundle: fixture.stranger }, format);
        expect(json['verified'], JSON.stringify(json)).toBe(true);
        const warnings = foreignWarnings(json);
        expect(warnings, `round ${round}: ${JSON.stringify(json)}`).toHaveLength(1);
        expect(warnings[0]).toContain(`agent '${fixture.agentId}'`);
        for (const kid of victimKids) expect(warnings[0]).toContain(kid);
        for (const kid of fixture.strangerKids) expect(warnings[0]).not.toContain(kid);
      }
      // The stranger's keys were not bound to A (P45, unchanged).
      expect(await service.keyStatus(fixture.strangerKids[0] as string)).toBe(404);
    },
  );

  it.each(CASES)("POST %s (%s): A's own bundle, no such warning", async (path, format) => {
    const json = await answer(service.url, path, { signed_bundle: victimBundle }, format);
    expect(json['verified'], JSON.stringify(json)).toBe(true);
    expect(foreignWarnings(json)).toEqual([]);
  });

  it("P503: a stranger's own RPR naming A's principal, signed by the stranger's keys: warned, naming the principal's kids", async () => {
    const principalKids = [
      fixture.victim.keys.principal.classical.kid,
      ...(fixture.victim.keys.principal.pq === undefined ? [] : [fixture.victim.keys.principal.pq.kid]),
    ];
    const own = buildSignedBundle({
      hooks: {
        payloads: (p) => {
          p.responsible_principal_record['human_id'] = fixture.humanId;
          p.agent_passport['principal_binding_reference'] = fixture.humanId;
          p.intent['human_id'] = fixture.humanId;
        },
      },
    });
    for (const [path, format] of CASES) {
      const json = await answer(service.url, path, { signed_bundle: own.signed_bundle }, format);
      expect(json['verified'], JSON.stringify(json)).toBe(true);
      const warnings = foreignWarnings(json);
      expect(warnings, `${path} ${format}: ${JSON.stringify(json)}`).toHaveLength(1);
      expect(warnings[0]).toContain(`human_id '${fixture.humanId}'`);
      for (const kid of principalKids) expect(warnings[0]).toContain(kid);
      expect(warnings[0]).toContain("bundle's RPR");
    }
  });

  it('a stranger naming an agent id nobody bound here: first come, no such warning', async () => {
    const other = borrowedRprBundle({ agentId: `agent-fresh-${Date.now()}` });
    const json = await answer(service.url, '/verify', { signed_bundle: other.stranger }, 'json');
    expect(json['verified'], JSON.stringify(json)).toBe(true);
    expect(foreignWarnings(json)).toEqual([]);
  });
});
