// The rate-limit key of a client address: one key per spelling-independent address, IPv6 by /64.
// Issue 12 item 5 (D17).
import { describe, expect, it } from 'vitest';
import { clientAddressKey } from './client-address.ts';

describe('clientAddressKey', () => {
  it('gives every spelling and every address of one IPv6 /64 the same key', () => {
    const keys = new Set(
      [
        '2001:db8::1',
        '2001:DB8::1',
        '2001:db8:0::1',
        '2001:0db8:0000:0000:0000:0000:0000:0001',
        '2001:db8::ffff:1234:5678:9abc',
        '[2001:db8::2]',
        '2001:db8::1%eth0',
        '2001:db8::1.2.3.4',
      ].map(clientAddressKey),
    );
    expect([...keys]).toEqual(['2001:db8:0:0::/64']);
    expect(clientAddressKey('2001:db8:0:1::1')).toBe('2001:db8:0:1::/64');
  });

  it('maps IPv4-mapped IPv6 to IPv4 and leaves IPv4 as it is', () => {
    for (const address of ['192.0.2.7', '::ffff:192.0.2.7', '::FFFF:c000:0207', '0:0:0:0:0:ffff:c000:207']) {
      expect(clientAddressKey(address)).toBe('192.0.2.7');
    }
  });

  it('keys an IPv6 address carrying one IPv4 client by that client (P274, P275)', () => {
    // NAT64/SIIT well-known prefix: the embedded address, however it is spelt.
    for (const address of ['64:ff9b::192.0.2.7', '64:FF9B::c000:207', '0064:ff9b:0:0:0:0:c000:0207']) {
      expect(clientAddressKey(address)).toBe('192.0.2.7');
    }
    // Local-use NAT64: one key per address (one IPv4 client each), whatever prefix length the operator chose.
    expect(clientAddressKey('64:ff9b:1:fffe::192.0.2.7')).toBe('64:ff9b:1:fffe:0:0:c000:207/128');
    expect(clientAddressKey('64:ff9b:1:fffe::192.0.2.8')).not.toBe(
      clientAddressKey('64:ff9b:1:fffe::192.0.2.7'),
    );
    // Teredo (RFC 4380's example): the client's IPv4 address, bits inverted back.
    expect(clientAddressKey('2001:0:4136:e378:8000:63bf:3fff:fdd2')).toBe('192.0.2.45');
    // 6to4: the site's IPv4 address for every /64 of its /48.
    expect(clientAddressKey('2002:c000:22d:1::1')).toBe('192.0.2.45');
    expect(clientAddressKey('2002:c000:22d:ffff::9')).toBe('192.0.2.45');
    // Neighbours of these prefixes are plain /64s.
    expect(clientAddressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientAddressKey('64:ff9b:2::1')).toBe('64:ff9b:2:0::/64');
    expect(clientAddressKey('64:ff9b:0:0:1::1')).toBe('64:ff9b:0:0::/64');
  });

  it('drops the port a proxy may forward with the address (P257)', () => {
    expect(clientAddressKey('192.0.2.7:40001')).toBe('192.0.2.7');
    expect(clientAddressKey('[2001:db8::1]:443')).toBe('2001:db8:0:0::/64');
    expect(clientAddressKey('[::ffff:192.0.2.7]:8080')).toBe('192.0.2.7');
    // A bare IPv6 address ends in a group, never a port.
    expect(clientAddressKey('2001:db8::1:443')).toBe('2001:db8:0:0::/64');
  });

  it('answers undefined for something that is not an address', () => {
    for (const junk of [
      '',
      'unknown',
      '2001:db8::1::2',
      '1.2.3',
      'evil, 1.2.3.4',
      '192.0.2.7:',
      '192.0.2.7:123456',
      '[2001:db8::1]:',
    ]) {
      expect(clientAddressKey(junk)).toBeUndefined();
    }
  });

  it('P339: a SIIT or IPv4-compatible address is its IPv4 client; loopback and unspecified are not', () => {
    for (const address of [
      '::ffff:0:192.0.2.7',
      '::FFFF:0:c000:207',
      '::192.0.2.7',
      '0:0:0:0:0:0:c000:207',
    ]) {
      expect(clientAddressKey(address)).toBe('192.0.2.7');
    }
    expect(clientAddressKey('::1')).toBe('0:0:0:0::/64');
    expect(clientAddressKey('::')).toBe('0:0:0:0::/64');
  });
});
