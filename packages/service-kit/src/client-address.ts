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
 * The key a client's requests are counted under (a port after the address is dropped): IPv4 as a dotted quad, an
 * IPv6 address that carries one IPv4 client (IPv4-mapped, SIIT, IPv4-compatible, NAT64, Teredo, 6to4:
 * `embeddedClientKey`) as that client's
 * key, any other IPv6 address as its /64 (`2001:db8:0:0::/64`). Undefined when `address` is not an IP address (the
 * caller then counts the TCP peer instead).
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
  return embeddedClientKey(groups) ?? `${hex(groups.slice(0, 4))}::/64`;
}

const hex = (groups: readonly number[]) => groups.map((g) => g.toString(16)).join(':');

/** Two 16-bit groups as a dotted quad. */
const dottedQuad = (hi: number, lo: number) => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.');

/**
 * The key of an IPv6 address that stands for one IPv4 client, undefined for any other. Its /64 would count a
 * whole translator's or relay's clients as one (one abuser locks out all: P274), or give one IPv4 host 65,536
 * budgets (6to4: P275). Each is the client's IPv4 key, so the same client is one budget however it arrives.
 */
function embeddedClientKey(groups: readonly number[]): string | undefined {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  const zeroUpTo = (n: number) => groups.slice(0, n).every((g) => g === 0);
  // IPv4-mapped (::ffff:0:0/96): the IPv4 address as the dual-stack socket sees it.
  if (zeroUpTo(5) && g5 === 0xffff) return dottedQuad(g6, g7);
  // SIIT's IPv4-translated address (RFC 6145, ::ffff:0:0:0/96) and the deprecated IPv4-compatible one (RFC 4291
  // §2.5.5.1, ::/96): older spellings of one IPv4 client, whose /64 (`0:0:0:0::/64`) every such client shared
  // (P339). `::` and `::1` (unspecified, loopback) are no IPv4 client and keep the /64.
  if (zeroUpTo(4) && g4 === 0xffff && g5 === 0) return dottedQuad(g6, g7);
  if (zeroUpTo(6) && (g6 !== 0 || g7 > 1)) return dottedQuad(g6, g7);
  if (g0 === 0x64 && g1 === 0xff9b) {
    // NAT64/SIIT well-known prefix (RFC 6052 §2.1, 64:ff9b::/96): an IPv4 client's address in the last 32 bits.
    if (g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return dottedQuad(g6, g7);
    // Local-use prefix (RFC 8215, 64:ff9b:1::/48): the operator picks the prefix length (/48 to /96, RFC 6052 §2.2),
    // so where the IPv4 bits sit is unknown here; with the suffix zero, each address is one IPv4 client.
    if (g2 === 1) return `${hex(groups)}/128`;
  }
  // Teredo (RFC 4380 §4, 2001:0::/32): the client's public IPv4 address, bits inverted, in the last 32 bits. The
  // /64 is the Teredo server's and its flags, shared by all its clients.
  if (g0 === 0x2001 && g1 === 0) return dottedQuad(~g6 & 0xffff, ~g7 & 0xffff);
  // 6to4 (RFC 3056 §2, 2002:V4ADDR::/48): the site's IPv4 address, and every /64 of the /48 is that one host's.
  if (g0 === 0x2002) return dottedQuad(g1, g2);
  return undefined;
}
