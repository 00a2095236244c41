// The `Expect` request header (RFC 9110 §10.1.1), sent raw to the real log (brief "redkit", P256). Node answers it
// before Fastify sees the request: `100 Continue` at once to any `Expect: 100-continue`, so an anonymous client was
// told to send its body to POST /add before the operator guard refused it (row h: "401 before the body is read");
// and a bare 417 to any other expectation, without the shared error shape, request id, security headers, `no-store`
// or a count in proto_http_errors_total (row ad's parser refusals all have them); and, the same way, a bare 400 to an
// HTTP/1.1 request without Host.
import { rawConnection } from '@proto/testing';
import { describe, expect, it } from 'vitest';
import { bundleHash, OPERATOR_AUTH } from '../../src/test-support.ts';
import { listeningLogForFile } from './test-helpers.ts';

const listeningLog = listeningLogForFile('expect-header');
const url = () => listeningLog().url;

const body = JSON.stringify({ bundle_hash: bundleHash(1, 'expect') });

function addHead(headers: Record<string, string>): string {
  const lines = Object.entries({
    host: 'log.test',
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    ...headers,
  }).map(([name, value]) => `${name}: ${value}\r\n`);
  return `POST /add HTTP/1.1\r\n${lines.join('')}\r\n`;
}

/** Status lines, in order, of everything the service wrote. */
const statusLines = (raw: string) => raw.match(/^HTTP\/1\.1 \d{3}[^\r]*/gm) ?? [];

function headerOf(raw: string, name: string): string | undefined {
  const match = new RegExp(`^${name}: ([^\\r]*)`, 'im').exec(raw);
  return match?.[1];
}

describe('P256: Expect: 100-continue', () => {
  it('an anonymous POST /add gets its 401 without a 100 Continue first, so its body is never asked for', async () => {
    const connection = await rawConnection(url());
    connection.write(addHead({ expect: '100-continue' }));
    const raw = await connection.closed();
    expect(statusLines(raw), raw).toEqual(['HTTP/1.1 401 Unauthorized']);
    expect(raw).toContain('"code":"UNAUTHORIZED"');
  });

  it('the operator gets 100 Continue once the guard passed, sends the body, and the hash is appended', async () => {
    const connection = await rawConnection(url());
    connection.write(addHead({ expect: '100-continue', ...OPERATOR_AUTH, connection: 'close' }));
    const interim = await connection.until(/HTTP\/1\.1 100 Continue\r\n\r\n/);
    expect(statusLines(interim), interim).toEqual(['HTTP/1.1 100 Continue']);
    connection.write(body);
    const raw = await connection.closed();
    expect(statusLines(raw), raw).toEqual(['HTTP/1.1 100 Continue', 'HTTP/1.1 201 Created']);
  });
});

describe('P256: an expectation the service cannot meet', () => {
  it('is 417 in the shared error shape, with a request id, the security headers, a cache directive, and counted', async () => {
    const connection = await rawConnection(url());
    connection.write(
      'GET /checkpoint HTTP/1.1\r\nhost: log.test\r\nexpect: 200-ok\r\nconnection: close\r\n\r\n',
    );
    const raw = await connection.closed();
    expect(statusLines(raw), raw).toEqual(['HTTP/1.1 417 Expectation Failed']);
    expect(raw).toContain('{"error":{"code":"EXPECTATION_FAILED"');
    expect(headerOf(raw, 'x-request-id')).toMatch(/\S/);
    expect(headerOf(raw, 'x-content-type-options')).toBe('nosniff');
    // The log's read routes say `no-cache` on their errors too (P189); either way no cache reuses the answer.
    expect(headerOf(raw, 'cache-control')).toMatch(/^no-(store|cache)$/);
    const metrics = await (await fetch(`${url()}/metrics`)).text();
    expect(metrics).toMatch(/^proto_http_errors_total\{code="EXPECTATION_FAILED"\} 1$/m);
  });

  it('an HTTP/1.1 request without Host, which Node refused with a bare 400, gets the shared shape too', async () => {
    const connection = await rawConnection(url());
    connection.write('GET /checkpoint HTTP/1.1\r\nconnection: close\r\n\r\n');
    const raw = await connection.closed();
    expect(statusLines(raw), raw).toEqual(['HTTP/1.1 400 Bad Request']);
    expect(raw).toContain('{"error":{"code":"BAD_REQUEST"');
    expect(headerOf(raw, 'x-request-id')).toMatch(/\S/);
    expect(headerOf(raw, 'x-content-type-options')).toBe('nosniff');
  });

  it('a request without Expect is answered as before (control)', async () => {
    const connection = await rawConnection(url());
    connection.write('GET /checkpoint HTTP/1.1\r\nhost: log.test\r\nconnection: close\r\n\r\n');
    expect(statusLines(await connection.closed())).toEqual(['HTTP/1.1 200 OK']);
  });
});
