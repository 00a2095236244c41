// P260: a CONNECT request (RFC 9110 §9.3.6), sent raw to the real log. Node hands CONNECT to a `connect` listener
// and, with none, destroys the socket: no answer, no log line, no count in proto_http_errors_total. Now the kit
// answers it 405 in the shared error shape, with the security headers, logged and counted, and closes the
// connection (a tunnel is never opened).
import { rawConnection } from '@proto/testing';
import { describe, expect, it } from 'vitest';
import { listeningLogForFile } from './test-helpers.ts';

const listeningLog = listeningLogForFile('connect-method');
const url = () => listeningLog().url;

describe('P260: CONNECT', () => {
  it.each([
    ['an authority (a tunnel)', 'example.com:443'],
    ['a path of the service', '/add'],
  ])('CONNECT to %s: 405 in the shared shape, counted, connection closed', async (_what, target) => {
    const before = await (await fetch(`${url()}/metrics`)).text();
    const connection = await rawConnection(url());
    // A path is no host (P586 refuses such a Host): the service's own authority names it.
    const host = target.startsWith('/') ? new URL(url()).host : target;
    connection.write(`CONNECT ${target} HTTP/1.1\r\nhost: ${host}\r\n\r\n`);
    const raw = await connection.closed();
    expect(raw.split('\r\n')[0], raw).toBe('HTTP/1.1 405 Method Not Allowed');
    expect(raw).toContain('"code":"METHOD_NOT_ALLOWED"');
    expect(raw).toMatch(/^x-request-id: /im);
    expect(raw).toMatch(/^x-content-type-options: nosniff/im);
    expect(raw).toMatch(/^connection: close/im);
    const count = (text: string) =>
      Number(/^proto_http_errors_total\{code="METHOD_NOT_ALLOWED"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    const after = await (await fetch(`${url()}/metrics`)).text();
    expect(count(after)).toBe(count(before) + 1);
  });

  it('a plain request on the same service is answered as before (control)', async () => {
    expect((await fetch(`${url()}/checkpoint`)).status).toBe(200);
  });
});
