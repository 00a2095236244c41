// The emergency-revocation budget (P254) for addresses that carry an IPv4 address inside an IPv6 one. Every IPv6
// address was counted by its /64, so:
// - P274: every IPv4 client reaching an IPv6-only service through a NAT64/SIIT translator (RFC 6052 `64:ff9b::/96`,
//   RFC 8215 local-use `64:ff9b:1::/48`) shared one budget, the translator's /64: one abuser locked out every IPv4
//   client. Now the well-known prefix's embedded IPv4 address is the key (as the client's plain IPv4 address is), and
//   a local-use address is counted whole (its translator embeds one IPv4 client per address).
// - P274: every Teredo client (RFC 4380 `2001::/32`) of one Teredo server shared the server's /64. Now its key is the
//   client's own public IPv4 address, deobfuscated from the last 32 bits.
// - P275: a 6to4 site (RFC 3056 `2002:V4ADDR::/48`) holds 65,536 /64s, a fresh budget each for one IPv4 host. Now
//   its key is the IPv4 address the prefix embeds.
// The real revocation service behind one trusted proxy (the test), as P254's test runs it.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { emergencyRevocationRecord, newEmergencySecret } from '../../src/test-support.ts';
import { serviceForDescribe } from './test-helpers.ts';

describe('P274, P275: an IPv4 client inside an IPv6 address is counted as that IPv4 client', () => {
  const service = serviceForDescribe({
    JURISDICTION: 'US',
    TRUST_PROXY: '127.0.0.1',
    EMERGENCY_MAX_PER_IP: '3',
    EMERGENCY_MAX_PER_AGENT: '1000',
  });

  /** One emergency-revocation attempt for an agent with no token (403 since P305, 404 before it) from `from`; 429 once its budget is spent. */
  const attempt = async (from: string) => {
    const agent = `agent:embedded-${randomBytes(4).toString('hex')}`;
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

  it('NAT64 well-known prefix: one IPv4 client spending its budget leaves another its own', async () => {
    const spender = [
      '64:ff9b::192.0.2.10',
      '64:ff9b::c000:20a',
      '64:ff9b::192.0.2.10',
      '64:ff9b::192.0.2.10',
    ];
    expect(await attempts(spender)).toEqual([403, 403, 403, 429]);
    expect(await attempts(['64:ff9b::198.51.100.20'])).toEqual([403]);
  });

  it('NAT64 well-known prefix: the translated and the plain IPv4 spelling are one client', async () => {
    expect(await attempts(['192.0.2.11', '64:ff9b::192.0.2.11', '64:ff9b::c000:20b', '192.0.2.11'])).toEqual([
      403, 403, 403, 429,
    ]);
  });

  it('NAT64 local-use prefix: one client per address, not one for the translator', async () => {
    const spender = Array.from({ length: 4 }, () => '64:ff9b:1:fffe::192.0.2.30');
    expect(await attempts(spender)).toEqual([403, 403, 403, 429]);
    expect(await attempts(['64:ff9b:1:fffe::198.51.100.31'])).toEqual([403]);
  });

  it('Teredo: clients of one Teredo server are counted by their own IPv4 address', async () => {
    // RFC 4380 §4: server 65.54.227.120, flags 0x8000, port and client address obfuscated (bits inverted).
    // 192.0.2.45 → 3fff:fdd2; 198.51.100.7 → 39cc:9bf8.
    const spender = Array.from({ length: 4 }, () => '2001:0:4136:e378:8000:63bf:3fff:fdd2');
    expect(await attempts(spender)).toEqual([403, 403, 403, 429]);
    expect(await attempts(['2001:0:4136:e378:8000:63bf:39cc:9bf8'])).toEqual([403]);
    // The Teredo client and the same IPv4 address sent plainly are one client (its budget is spent).
    expect(await attempts(['192.0.2.45'])).toEqual([429]);
  });

  it('6to4: the /64s of one 6to4 site share the budget of its IPv4 address', async () => {
    const site = ['2002:c000:22e:1::1', '2002:c000:22e:2::1', '2002:c000:22e:ffff::9', '2002:c000:22e:3::1'];
    expect(await attempts(site)).toEqual([403, 403, 403, 429]);
    expect(await attempts(['192.0.2.46'])).toEqual([429]);
    // Another site (another IPv4 address) is another client.
    expect(await attempts(['2002:c000:22f:1::1'])).toEqual([403]);
  });
});
