// redteam4 (P585, P586): anyone on the network, against the real revocation service over raw TCP. (1) A Host,
// X-Forwarded-*, Forwarded or absolute-form target naming the attacker's host must land in no answer (the signed
// list, its ETag'd copy a later reader revalidates, the docs' Location) nor in a stored entry. (2) Framings a front
// and the service could read differently must be 400 with the connection closed, and no agent revoked by any.
import { documentedGetPaths, framingFaults, hostLeaks, postWithAttackerOrigin } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type RunningService, startService, TOKEN } from '../../src/test-support.ts';

let service: RunningService;
beforeAll(async () => {
  service = await startService();
});
afterAll(() => service?.close());

const REVOKE_HEADERS = [`Authorization: Bearer ${TOKEN}`, 'Content-Type: application/json'];
const agentFor = (tag: string) => `agent-redteam4-${Buffer.from(tag).toString('hex').slice(0, 40)}`;
const revokeBody = (tag: string) => JSON.stringify({ agent_id: agentFor(tag), reason: 'key compromise' });

describe('redteam4: Host and framing edges on the revocation service', () => {
  it("never names an attacker's host in an answer, the signed list or an entry (P586)", async () => {
    const revoked = await postWithAttackerOrigin(
      service.url,
      '/revocations',
      REVOKE_HEADERS,
      revokeBody('origin'),
    );
    expect(revoked.status).toBe(201);
    const paths = await documentedGetPaths(service.url, () => agentFor('origin'));
    expect(await hostLeaks(service.url, [...paths, '/'])).toEqual([]);
    const entry = await call(service, 'GET', `/revocations/${agentFor('origin')}`);
    expect(JSON.stringify(entry.json)).not.toMatch(/attacker-host/i);
  });

  it('refuses every smuggling framing with 400 and a closed connection, revoking no one (P585)', async () => {
    const names: string[] = [];
    const faults = await framingFaults(service.url, '/revocations', REVOKE_HEADERS, (name) => {
      names.push(name);
      return revokeBody(name);
    });
    expect(faults).toEqual([]);
    for (const name of names) {
      expect([name, (await call(service, 'GET', `/revocations/${agentFor(name)}`)).status]).toEqual([
        name,
        404,
      ]);
    }
  });
});
