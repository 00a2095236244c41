// P259: the revocation service's write bodies are read as sent. Fastify validated bodies with `coerceTypes: 'array'`:
// a one-element array was read as its element (`{"agent_id": ["agent-…"]}` revoked the agent), a lone string as a
// one-element array (`"kids": "kid-…"`), a number or a boolean as its text. Now bodies are validated without
// coercion in service-kit: 400 PROTO-E001 naming the member, nothing stored. The real service over HTTP.
import { describe, expect, it } from 'vitest';
import { call, newEmergencySecret } from '../../src/test-support.ts';
import { expectRefusalNaming, registeredForEmergency, serviceForFile } from './body-refusals.ts';

const running = serviceForFile();

describe('P259: revocation write bodies are not coerced', () => {
  it.each([
    [
      'agent_id as a one-element array',
      (a: string) => ({ agent_id: [a], reason: 'key compromise' }),
      'agent_id',
    ],
    ['reason as a one-element array', (a: string) => ({ agent_id: a, reason: ['key compromise'] }), 'reason'],
    ['reason as a number', (a: string) => ({ agent_id: a, reason: 42 }), 'reason'],
    ['reason as a boolean', (a: string) => ({ agent_id: a, reason: true }), 'reason'],
  ])('POST /revocations with %s: 400 E001, the agent is not revoked', async (what, body, member) => {
    const service = running();
    const agent = `agent-body-types-${what.replace(/\W+/g, '-')}`;
    expectRefusalNaming(await call(service, 'POST', '/revocations', body(agent)), member);
    expect((await call(service, 'GET', `/revocations/${agent}`)).status).toBe(404);
  });

  it('PUT /emergency-tokens/:agent_id with kids as a lone string or the token as an array: 400, nothing registered', async () => {
    const service = running();
    const agent = 'agent-body-types-put-0001';
    const { token } = newEmergencySecret();
    expectRefusalNaming(
      await call(service, 'PUT', `/emergency-tokens/${agent}`, {
        emergency_revocation_token: token,
        kids: 'kid-body-types-0001',
      }),
      'kids',
    );
    expectRefusalNaming(
      await call(service, 'PUT', `/emergency-tokens/${agent}`, { emergency_revocation_token: [token] }),
      'emergency_revocation_token',
    );
    // Nothing was registered: the first well-typed registration creates it (201), it does not replace (200).
    expect(
      (await call(service, 'PUT', `/emergency-tokens/${agent}`, { emergency_revocation_token: token }))
        .status,
    ).toBe(201);
  });

  it('POST /emergency-revocations with agent_id as a one-element array: 400, the agent is not revoked', async () => {
    const service = running();
    const agent = 'agent-body-types-emergency-0001';
    const { secret, record } = await registeredForEmergency(service, agent);
    expectRefusalNaming(
      await call(service, 'POST', '/emergency-revocations', { ...record, agent_id: [agent] }, null),
      'agent_id',
    );
    expectRefusalNaming(
      await call(
        service,
        'POST',
        '/emergency-revocations',
        { ...record, revocation_secret: [secret.hex] },
        null,
      ),
      'revocation_secret',
    );
    expect((await call(service, 'GET', `/revocations/${agent}`)).status).toBe(404);
    // Control: the same record as sent by the holder of the secret revokes.
    expect((await call(service, 'POST', '/emergency-revocations', record, null)).status).toBe(200);
    expect((await call(service, 'GET', `/revocations/${agent}`)).status).toBe(200);
  });

  it('POST /attest with agent_id as a one-element array: 400, no attestation', async () => {
    const service = running();
    expectRefusalNaming(
      await call(service, 'POST', '/attest', {
        rpr_hash: `sha256:${'cd'.repeat(32)}`,
        agent_id: ['agent-body-types-attest-0001'],
      }),
      'agent_id',
    );
  });
});
