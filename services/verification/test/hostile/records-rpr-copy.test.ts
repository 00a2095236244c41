// P600 and P602 over HTTP against the real verification service, its records mounted on a real store of each dialect.
// An RPR names no agent, but it carries its session's nonce, which the passport and manifest repeat: a human who
// commissions a second agent issues a second RPR. So one RPR payload (one `manifest.rpr_hash`) naming two agent ids
// is a copy. A stranger copies known human H's RPR (signed by H, public in every bundle of H's agent A) beside its own
// passport for a new agent X; core verifies it (P490 warns), and the key directory, which judged H's signature only
// (P584), bound X under H, so the stranger commissioned "agent X of H". P602: a known agent's bundle whose RPR names
// another known human, signed by the agent's own new key, bound that key to the agent as its principal's.
import { buildSignedBundle } from '@proto/core';
import { borrowedRprBundle } from '@proto/core/testing';
import { dialectsUnderTest } from '@proto/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  commissioningCertificate,
  partyOf,
  startVerifierWithRecords,
  type VerifierWithRecords,
} from './verifier-with-records.ts';

const shown = (answer: { json: unknown }) => JSON.stringify(answer.json).slice(0, 400);
/** Past APPLY_WAIT_MS, after which a verified bundle's keys are applied even if its answer went out first (P469). */
const settled = () => new Promise((resolve) => setTimeout(resolve, 1_500));
const fresh = (label: string) => `agent:p600-${label}-${Math.random().toString(36).slice(2, 10)}`;

describe.each(dialectsUnderTest())('P600: one RPR, two agents, on %s', (dialect) => {
  let service: VerifierWithRecords;
  const copied = borrowedRprBundle({ agentId: fresh('copy') });
  const victim = partyOf(copied.victim);

  beforeAll(async () => {
    service = await startVerifierWithRecords(dialect, 'rpr-copy', { VERIFY_RATE_LIMIT_PER_MINUTE: '0' });
    const genuine = await service.post('/verify', { signed_bundle: victim.built.signed_bundle });
    expect(genuine.json['verified'], shown(genuine)).toBe(true);
    expect(await service.keyStatusOnce(victim.agentKeys.classical.kid, 200)).toBe(200);
  }, 120_000);
  afterAll(() => service?.close());

  it("a stranger's new agent beside H's copied RPR is not H's agent: warned, nothing bound, commissioning 403", async () => {
    const verified = await service.post('/verify', { signed_bundle: copied.stranger });
    expect(verified.json['verified'], shown(verified)).toBe(true);
    const commissioned = await service.post(
      '/v2/lifecycle/commission',
      commissioningCertificate(copied, copied.strangerKeys),
    );
    // before: 201, stored `verified`: the stranger's agent written as an agent of H.
    expect(commissioned.status, shown(commissioned)).toBe(403);
    expect(commissioned.json).toMatchObject({ error: { code: 'FORBIDDEN' } });
    for (const kid of copied.strangerKids) expect(await service.keyStatus(kid)).toBe(404);
    // The verdict follows the protocol (P490's warning); the directory's own warning names the first agent.
    const warnings = JSON.stringify(verified.json['warnings']);
    expect(warnings).toContain('signed by agent keys only');
    expect(warnings, shown(verified)).toContain(`first bound here for agent '${victim.agentId}'`);
  });

  it("H's own agent, its bundle verified again, is still bound and commissioned", async () => {
    const again = await service.post('/verify', { signed_bundle: victim.built.signed_bundle });
    expect(again.json['verified'], shown(again)).toBe(true);
    expect(JSON.stringify(again.json['warnings'] ?? [])).not.toContain('first bound here');
    const commissioned = await service.post(
      '/v2/lifecycle/commission',
      commissioningCertificate(victim, victim.built.keys.agent),
    );
    expect(commissioned.status, shown(commissioned)).toBe(201);
  });

  it('two strangers presenting one RPR at once, to two replicas: one agent binds', async () => {
    const source = buildSignedBundle({ entries: 2 });
    const rivals = [fresh('race1'), fresh('race2')].map((agentId) =>
      borrowedRprBundle({ agentId, victim: source }),
    );
    const replicas = [service.url, await service.secondReplica()];
    const answers = await Promise.all(
      rivals.map((rival, i) =>
        fetch(`${replicas[i]}/verify`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ signed_bundle: rival.stranger }),
        }).then((res) => res.json() as Promise<Record<string, unknown>>),
      ),
    );
    for (const json of answers) expect(json['verified'], JSON.stringify(json)).toBe(true);
    await settled();
    const statuses = await Promise.all(
      rivals.map((rival) => service.keyStatus(rival.strangerKids[0] as string)),
    );
    // before: [200, 200], both bound under the one RPR.
    expect(statuses.sort()).toEqual([200, 404]);
  });
});

describe.each(dialectsUnderTest())(
  "P602: a known agent's RPR that its human did not sign, on %s",
  (dialect) => {
    let service: VerifierWithRecords;
    const agent = partyOf(buildSignedBundle());
    const human = partyOf(buildSignedBundle());

    beforeAll(async () => {
      service = await startVerifierWithRecords(dialect, 'rpr-unsigned', {
        VERIFY_RATE_LIMIT_PER_MINUTE: '0',
      });
      for (const party of [agent, human]) {
        const verified = await service.post('/verify', { signed_bundle: party.built.signed_bundle });
        expect(verified.json['verified'], shown(verified)).toBe(true);
        expect(await service.keyStatusOnce(party.agentKeys.classical.kid, 200)).toBe(200);
      }
    }, 120_000);
    afterAll(() => service?.close());

    it("the agent's own new RPR key naming H binds to nobody: H signed nothing for the agent", async () => {
      const claimed = partyOf(
        buildSignedBundle({
          keys: { agent: agent.built.keys.agent },
          hooks: {
            payloads: (p) => {
              p.responsible_principal_record['human_id'] = human.humanId;
              p.agent_passport['principal_binding_reference'] = human.humanId;
              p.intent['human_id'] = human.humanId;
            },
          },
        }),
      );
      expect(claimed.agentId).toBe(agent.agentId);
      const verified = await service.post('/verify', { signed_bundle: claimed.built.signed_bundle });
      expect(verified.json['verified'], shown(verified)).toBe(true);
      expect(JSON.stringify(verified.json['warnings'])).toContain(`human_id '${human.humanId}'`);
      await settled();
      // before: 200, the key bound to the agent as its principal's.
      expect(await service.keyStatus(claimed.principalKeys.classical.kid)).toBe(404);
      // The agent's own passport key still speaks for it.
      expect(await service.keyStatus(agent.agentKeys.classical.kid)).toBe(200);
    });
  },
);
