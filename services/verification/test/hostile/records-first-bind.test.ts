// P584 over HTTP against the real verification service, its records mounted on a real store of each dialect: human H
// is known here (a genuine bundle of agent A bound H's RPR keys). A stranger makes its own bundle for a fresh agent X
// whose RPR names H but is signed by the stranger's key. Core verifies it (P503 warns: none of H's keys signed the
// RPR), and the key directory checked the agent's continuity alone (P45): X was new, so its passport keys were bound
// to X, and the stranger then commissioned "agent X of H" with X's key, stored as `verified` (P559, found by reading).
import { buildSignedBundle } from '@proto/core';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  commissioningCertificate,
  partyOf,
  startVerifierWithRecords,
  type VerifierWithRecords,
} from './verifier-with-records.ts';

/** A bundle of a fresh agent whose RPR names `humanId`, signed by `principal` keys (fresh ones when absent). */
const bundleNaming = (
  humanId: string,
  principal?: ReturnType<typeof buildSignedBundle>['keys']['principal'],
) =>
  partyOf(
    buildSignedBundle({
      ...(principal === undefined ? {} : { keys: { principal } }),
      hooks: {
        payloads: (p) => {
          p.responsible_principal_record['human_id'] = humanId;
          p.agent_passport['principal_binding_reference'] = humanId;
          p.intent['human_id'] = humanId;
        },
      },
    }),
  );

describe.each(dialectsUnderTest())(
  'P584: a foreign RPR first-binding a new agent under a known human, on %s',
  (dialect) => {
    let service: VerifierWithRecords;
    const known = partyOf(buildSignedBundle());

    beforeAll(async () => {
      service = await startVerifierWithRecords(dialect, 'first-bind', { VERIFY_RATE_LIMIT_PER_MINUTE: '0' });
      const genuine = await service.post('/verify', { signed_bundle: known.built.signed_bundle });
      expect(genuine.json['verified'], JSON.stringify(genuine.json)).toBe(true);
      expect(await service.keyStatusOnce(known.principalKeys.classical.kid, 200)).toBe(200);
    }, 120_000);
    afterAll(() => service?.close());

    it("the stranger's agent X is not bound under H, so its commissioning as H's agent is refused", async () => {
      const stranger = bundleNaming(known.humanId);
      const verified = await service.post('/verify', { signed_bundle: stranger.built.signed_bundle });
      // The verdict follows the protocol: verified, with P503's warning naming H's bound kids.
      expect(verified.json['verified'], JSON.stringify(verified.json)).toBe(true);
      expect(JSON.stringify(verified.json['warnings'])).toContain(`human_id '${known.humanId}'`);
      const commissioned = await service.post(
        '/v2/lifecycle/commission',
        commissioningCertificate(stranger, stranger.built.keys.agent),
      );
      expect(commissioned.status, JSON.stringify(commissioned.json).slice(0, 300)).toBe(403);
      expect(commissioned.json).toMatchObject({ error: { code: 'FORBIDDEN' } });
      expect(await service.keyStatus(stranger.agentKeys.classical.kid)).toBe(404);
      expect(await service.keyStatus(stranger.principalKeys.classical.kid)).toBe(404);
    });

    it("H's own second agent, its RPR signed by H's bound key, still binds and is commissioned", async () => {
      const second = bundleNaming(known.humanId, known.built.keys.principal);
      const verified = await service.post('/verify', { signed_bundle: second.built.signed_bundle });
      expect(verified.json['verified'], JSON.stringify(verified.json)).toBe(true);
      expect(await service.keyStatusOnce(second.agentKeys.classical.kid, 200)).toBe(200);
      const commissioned = await service.post(
        '/v2/lifecycle/commission',
        commissioningCertificate(second, second.built.keys.agent),
      );
      expect(commissioned.status, JSON.stringify(commissioned.json).slice(0, 300)).toBe(201);
    });

    it('a stranger naming a human nobody bound here: first come, bound (the TOFU limit, P584)', async () => {
      const first = bundleNaming(`human-fresh-${Date.now()}`);
      const verified = await service.post('/verify', { signed_bundle: first.built.signed_bundle });
      expect(verified.json['verified'], JSON.stringify(verified.json)).toBe(true);
      expect(await service.keyStatusOnce(first.agentKeys.classical.kid, 200)).toBe(200);
    });
  },
);
