// The emergency-revocation budget (P254) for two older spellings of an IPv4 client inside IPv6 (P339):
// - SIIT's IPv4-translated address (RFC 6145 / RFC 2765, `::ffff:0:a.b.c.d`, ::ffff:0:0:0/96), and
// - the deprecated IPv4-compatible address (RFC 4291 §2.5.5.1, `::a.b.c.d`).
// Both were counted by their /64, `0:0:0:0::/64`: one budget for every IPv4 client so written (one abuser locks out
// all), and another budget for the same client written plainly. Now each is counted by its IPv4 address, as
// IPv4-mapped, NAT64, Teredo and 6to4 addresses are (P274, P275). `::1` and `::` stay what they are.
// The real revocation service behind one trusted proxy (the test), as emergency-embedded-ipv4.test.ts runs it.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { emergencyRevocationRecord, newEmergencySecret } from '../../src/test-support.ts';
import { serviceForDescribe } from './test-helpers.ts';

describe('P339: SIIT and IPv4-compatible addresses are counted as their IPv4 client', () => {
  const service = serviceForDescribe({
    JURISDICTION: 'US',
    TRUST_PROXY: '127.0.0.1',
    EMERGENCY_MAX_PER_IP: '3',
    EMERGENCY_MAX_PER_AGENT: '1000',
  });

  /** One attempt for an agent with no token (403, P305) from `from`; 429 once its budget is spent. */
  const attempt = async (from: string) => {
    const agent = `agent:older-${randomBytes(4).toString('hex')}`;
    const res = await fetch(`${service().url}/emergency-revocations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
      body: JSON.stringify(emergencyRevocationRecord(agent, newEmergencySecret().hex)),
    });
    await res.arrayBuffer();
    return res.status;
  };
  const attempts = async (addresses: readonly string[]) => {
    const statuses: number[] = [];
    for (const address of addresses) statuses.push(await attempt(address));
    return statuses;
  };

  it('SIIT: one client spending its budget leaves another its own; the plain spelling is the same client', async () => {
    const spender = [
      '::ffff:0:192.0.2.60',
      '::ffff:0:c000:23c',
      '0:0:0:0:ffff:0:192.0.2.60',
      '::ffff:0:192.0.2.60',
    ];
    expect(await attempts(spender)).toEqual([403, 403, 403, 429]);
    expect(await attempts(['::ffff:0:198.51.100.60'])).toEqual([403]);
    expect(await attempts(['192.0.2.60'])).toEqual([429]);
  });

  it('IPv4-compatible: one client spending its budget leaves another its own; the plain spelling is the same client', async () => {
    expect(await attempts(['::192.0.2.61', '::c000:23d', '::192.0.2.61', '::192.0.2.61'])).toEqual([
      403, 403, 403, 429,
    ]);
    expect(await attempts(['::198.51.100.61'])).toEqual([403]);
    expect(await attempts(['192.0.2.61'])).toEqual([429]);
  });
});
