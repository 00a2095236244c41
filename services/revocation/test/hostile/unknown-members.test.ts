// P270: a write body's unknown member is refused, not dropped. Fastify's Ajv ran with `removeAdditional: true`, so
// on these routes (`additionalProperties: false`) a member the service does not read was deleted and the write went
// on: a typo (`revoked_att`), or a member a client thinks is honoured (`expires_at` of an attestation, `kids` the
// service never takes from a bundle registration). Now 400 PROTO-E001 naming the member, nothing written. SPEC.md
// gives each body's members and no extension point. The real service over HTTP.
import { describe, expect, it } from 'vitest';
import { type Answer, call, newEmergencySecret } from '../../src/test-support.ts';
import { expectRefusalNaming, registeredForEmergency, serviceForFile } from './body-refusals.ts';

const running = serviceForFile();
/** P270's refusals name the member in quotes. */
const refusedNaming = (answer: Answer, member: string) => expectRefusalNaming(answer, `"${member}"`);

describe('P270: revocation write bodies refuse members they do not read', () => {
  it('POST /revocations with a misspelt revoked_at: 400 naming it, the agent is not revoked', async () => {
    const service = running();
    const agent = 'agent-unknown-member-revoke-0001';
    refusedNaming(
      await call(service, 'POST', '/revocations', {
        agent_id: agent,
        reason: 'key compromise',
        revoked_att: '2020-01-01T00:00:00Z',
      }),
      'revoked_att',
    );
    expect((await call(service, 'GET', `/revocations/${agent}`)).status).toBe(404);
    // Control: the same body without the stray member revokes.
    expect(
      (await call(service, 'POST', '/revocations', { agent_id: agent, reason: 'key compromise' })).status,
    ).toBe(201);
  });

  it('PUT /emergency-tokens/:agent_id with a member it never reads: 400, nothing registered', async () => {
    const service = running();
    const agent = 'agent-unknown-member-put-0001';
    const { token } = newEmergencySecret();
    refusedNaming(
      await call(service, 'PUT', `/emergency-tokens/${agent}`, {
        emergency_revocation_token: token,
        human_id: 'human-unknown-member-0001',
      }),
      'human_id',
    );
    // Nothing was registered: the first clean registration creates it (201), it does not replace (200).
    expect(
      (await call(service, 'PUT', `/emergency-tokens/${agent}`, { emergency_revocation_token: token }))
        .status,
    ).toBe(201);
  });

  it('POST /emergency-revocations with an extra member: 400 naming it, the agent is not revoked', async () => {
    const service = running();
    const agent = 'agent-unknown-member-emergency-0001';
    const { record } = await registeredForEmergency(service, agent);
    refusedNaming(
      await call(service, 'POST', '/emergency-revocations', { ...record, kids: ['k1'] }, null),
      'kids',
    );
    expect((await call(service, 'GET', `/revocations/${agent}`)).status).toBe(404);
    // Control: the record as the holder of the secret sends it revokes.
    expect((await call(service, 'POST', '/emergency-revocations', record, null)).status).toBe(200);
  });

  it('POST /emergency-tokens with a member beside signed_bundle: 400 naming it, before the bundle is judged', async () => {
    const service = running();
    refusedNaming(
      await call(service, 'POST', '/emergency-tokens', { signed_bundle: {}, replace: true }, null),
      'replace',
    );
  });

  it('POST /attest with an expires_at of the caller: 400 naming it, no attestation', async () => {
    const service = running();
    refusedNaming(
      await call(service, 'POST', '/attest', {
        rpr_hash: `sha256:${'cd'.repeat(32)}`,
        agent_id: 'agent-unknown-member-attest-0001',
        expires_at: '2999-01-01T00:00:00Z',
      }),
      'expires_at',
    );
  });
});
