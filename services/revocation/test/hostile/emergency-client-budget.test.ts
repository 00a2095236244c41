// The emergency routes' own attempt budgets, attacked over HTTP on the real revocation service (brief "redkit"):
// P254, one client is one budget however its address is spelt and whichever address of its /64 it sends from;
// P255, strangers spending an agent's per-agent budget with wrong secrets cannot keep the holder of the right
// secret from revoking it. The service sits behind one trusted proxy (TRUST_PROXY=127.0.0.1, the test is the
// proxy), as a deployment that follows docs/security.md's advice (a proxy address, not `true`) does.
import { randomBytes } from 'node:crypto';
import { sampleBundle } from '@proto/verification/testing';
import { describe, expect, it } from 'vitest';
import {
  call,
  currentList,
  emergencyRevocationRecord,
  newEmergencySecret,
  postWithoutToken,
  type RunningService,
} from '../../src/test-support.ts';
import { serviceForDescribe } from './test-helpers.ts';

const JURISDICTION = 'US'; // the builder writes RPRs for US

const emergencyRevoke = (service: RunningService, agentId: string, secretHex: string, from: string) =>
  postWithoutToken(service, '/emergency-revocations', emergencyRevocationRecord(agentId, secretHex), {
    'x-forwarded-for': from,
  });

const unknownAgent = () => `agent:budget-${randomBytes(4).toString('hex')}`;

describe('P254: one client, one emergency budget, however its address is written', () => {
  const service = serviceForDescribe({
    JURISDICTION,
    TRUST_PROXY: '127.0.0.1',
    EMERGENCY_MAX_PER_IP: '3',
    EMERGENCY_MAX_PER_AGENT: '1000',
    EMERGENCY_REGISTRATIONS_PER_IP: '3',
  });

  it('revocation attempts from four addresses of one IPv6 /64 share the budget: the fourth is 429', async () => {
    const statuses: number[] = [];
    for (const address of ['2001:db8:7::1', '2001:db8:7::2', '2001:db8:7:0:ffff::9', '2001:DB8:7::1']) {
      statuses.push(
        (await emergencyRevoke(service(), unknownAgent(), newEmergencySecret().hex, address)).status,
      );
    }
    expect(statuses).toEqual([403, 403, 403, 429]);
    // Another /64 is another client.
    expect(
      (await emergencyRevoke(service(), unknownAgent(), newEmergencySecret().hex, '2001:db8:7:1::1')).status,
    ).toBe(403);
  });

  it('an IPv4 address and its IPv4-mapped IPv6 spellings are one client', async () => {
    const statuses: number[] = [];
    for (const address of [
      '192.0.2.44',
      '::ffff:192.0.2.44',
      '::FFFF:c000:022c',
      '0:0:0:0:0:ffff:192.0.2.44',
    ]) {
      statuses.push(
        (await emergencyRevoke(service(), unknownAgent(), newEmergencySecret().hex, address)).status,
      );
    }
    expect(statuses).toEqual([403, 403, 403, 429]);
  });

  it('bundle registrations from one /64 share their budget too', async () => {
    const statuses: number[] = [];
    for (let i = 1; i <= 4; i++) {
      statuses.push(
        (
          await postWithoutToken(
            service(),
            '/emergency-tokens',
            {},
            { 'x-forwarded-for': `2001:db8:9::${i}` },
          )
        ).status,
      );
    }
    expect(statuses).toEqual([400, 400, 400, 429]);
  });
});

describe('P255: strangers cannot hold an agent at 429 against the holder of its secret', () => {
  const service = serviceForDescribe({
    JURISDICTION,
    TRUST_PROXY: '127.0.0.1',
    EMERGENCY_MAX_PER_IP: '100',
    EMERGENCY_MAX_PER_AGENT: '4',
    EMERGENCY_WINDOW_S: '60',
  });

  it('after the agent budget is spent by wrong secrets from many addresses, wrong ones get 429 and the right one revokes', async () => {
    const secret = newEmergencySecret();
    const sample = sampleBundle({ emergencyRevocationToken: secret.token });
    const bundle = sample.signed_bundle as {
      bundle: { responsible_principal_record: { payload_hash: string } };
    };
    const attest = await call(service(), 'POST', '/attest', {
      rpr_hash: bundle.bundle.responsible_principal_record.payload_hash,
      agent_id: sample.agentId,
    });
    expect(attest.status, JSON.stringify(attest.json)).toBe(200);
    expect(
      (
        await postWithoutToken(
          service(),
          '/emergency-tokens',
          { signed_bundle: sample.signed_bundle },
          { 'x-forwarded-for': '192.0.2.1' },
        )
      ).status,
    ).toBe(201);
    const agentId = sample.agentId as string;
    // The thief who holds the agent's stolen key knows its id (it is in every bundle) and spends the agent's budget.
    const wrong: number[] = [];
    for (let i = 0; i < 6; i++) {
      wrong.push(
        (await emergencyRevoke(service(), agentId, newEmergencySecret().hex, `203.0.113.${i + 1}`)).status,
      );
    }
    expect(wrong).toEqual([403, 403, 403, 403, 429, 429]);
    const right = await emergencyRevoke(service(), agentId, secret.hex, '198.51.100.50');
    expect(right.status, JSON.stringify(right.json)).toBe(200);
    expect(right.json['agent_id']).toBe(agentId);
    const listed = ((await currentList(service()))['entries'] as Array<{ agent_id: string }>).map(
      (e) => e.agent_id,
    );
    expect(listed).toContain(agentId);
    // Wrong secrets stay held back for the rest of the window.
    expect((await emergencyRevoke(service(), agentId, newEmergencySecret().hex, '203.0.113.9')).status).toBe(
      429,
    );
  });
});

describe('P257: a proxy that writes the client port into X-Forwarded-For', () => {
  const service = serviceForDescribe({
    JURISDICTION,
    TRUST_PROXY: '127.0.0.1',
    EMERGENCY_MAX_PER_IP: '3',
    EMERGENCY_MAX_PER_AGENT: '1000',
  });

  it('one client spending its budget leaves another its own, and a new source port is the same client', async () => {
    // As Azure Application Gateway (and others) forward: `address:port`, `[IPv6]:port`.
    const attacker: number[] = [];
    for (let port = 40001; port <= 40004; port++) {
      attacker.push(
        (await emergencyRevoke(service(), unknownAgent(), newEmergencySecret().hex, `198.51.100.1:${port}`))
          .status,
      );
    }
    expect(attacker).toEqual([403, 403, 403, 429]);
    // Another client behind the same proxy: before, all of them shared the proxy's own budget, now spent.
    expect(
      (await emergencyRevoke(service(), unknownAgent(), newEmergencySecret().hex, '198.51.100.2:40001'))
        .status,
    ).toBe(403);
    expect(
      (await emergencyRevoke(service(), unknownAgent(), newEmergencySecret().hex, '[2001:db8:5::1]:443'))
        .status,
    ).toBe(403);
    // The same IPv6 client from another port and another address of its /64.
    expect(
      (await emergencyRevoke(service(), unknownAgent(), newEmergencySecret().hex, '[2001:db8:5::2]:444'))
        .status,
    ).toBe(403);
    expect(
      (await emergencyRevoke(service(), unknownAgent(), newEmergencySecret().hex, '2001:db8:5::3')).status,
    ).toBe(403);
    expect(
      (await emergencyRevoke(service(), unknownAgent(), newEmergencySecret().hex, '[2001:db8:5::4]:445'))
        .status,
    ).toBe(429);
  });
});
