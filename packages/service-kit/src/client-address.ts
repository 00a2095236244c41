// The rate-limit key of a client: its address in one canonical form, IPv6 grouped by /64.
// Issue 12 item 5 / D17: one client must not get a fresh budget per spelling or per address of its /64.
import { isIP } from 'node:net';

const GROUPS = 8;

/** Parses an IPv4 dotted quad into its four octets (undefined when it is not one). */
function ipv4Octets(text: string): number[] | undefined {
  if (isIP(text) !== 4) return undefined;
  return text.split('.').map((part) => Number.parseInt(part, 10));
}

/** Expands any IPv6 spelling (`::`, leading zeros, case, embedded IPv4) into eight 16-bit groups. */
export function ipv6Groups(text: string): number[] | undefined {
  if (isIP(text) !== 6) return undefined;
  let body = text.toLowerCase();
  const tail: number[] = [];
  const lastColon = body.lastIndexOf(':');
  const maybeV4 = ipv4Octets(body.slice(lastColon + 1));
  if (maybeV4) {
    const [a = 0, b = 0, c = 0, d = 0] = maybeV4;
    tail.push((a << 8) | b, (c << 8) | d);
    body = `${body.slice(0, lastColon + 1)}0`;
    // The placeholder `0` stands for the two IPv4 groups; drop it again after expansion.
  }
  const [head = '', rest] = body.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const left = parse(head);
  const right = rest === undefined ? [] : parse(rest);
  if (maybeV4) {
    (rest === undefined ? left : right).pop();
  }
  const missing = GROUPS - tail.length - left.length - right.length;
  if (missing < 0 || (rest === undefined && missing !== 0)) return undefined;
  return [...left, ...new Array<number>(missing).fill(0), ...right, ...tail];
}

/**
 * The key a client's requests are counted under (a port after the address is dropped): IPv4 as a dotted quad, an IPv4-mapped IPv6 address
 * as its IPv4 address, any other IPv6 address as its /64 (`2001:db8:0:0::/64`). Undefined when
 * `address` is not an IP address (the caller then counts the TCP peer instead).
 */
export function clientAddressKey(address: string): string | undefined {
  // Some proxies forward the client's source port too (`192.0.2.1:40001`, `[2001:db8::1]:443`, Azure Application
  // Gateway among them). Unread, every client behind such a proxy counted against the proxy's one budget, which any
  // one of them could spend for all; the port is not part of the client (P257).
  const text = address
    .trim()
    .replace(/^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/, '$1')
    .replace(/^\[(.*)\](?::\d{1,5})?$/, '$1');
  const v4 = ipv4Octets(text);
  if (v4) return v4.join('.');
  // A zone index (`fe80::1%eth0`) names an interface, not a different client.
  const groups = ipv6Groups(text.replace(/%.*$/, ''));
  if (!groups) return undefined;
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (mapped) {
    const [hi = 0, lo = 0] = groups.slice(6);
    return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}
