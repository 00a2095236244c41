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
});
