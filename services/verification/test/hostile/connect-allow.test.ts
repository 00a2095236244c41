// P273: a CONNECT request to a path of the service was answered 405 with an empty `Allow` (P260), which RFC 9110
// §10.2.1 reads as "this resource allows no method", while `GET /health` answers: a client (or a tool that retries by
// `Allow`) was told the path is dead. RFC 9110 §15.5.6: a 405 MUST carry the target resource's methods. Now `CONNECT
// /health` is 405 with `Allow` listing the route's methods (as any other method the route lacks gets), `CONNECT` to
// a path with no route is 404 like every other method there (no 405, so no Allow owed), and a tunnel request
// (`CONNECT host:port`, no resource of this service) stays 405 with the empty `Allow` (no method is allowed on it).
// The connection is closed after each, as before. The real verification service over raw TCP.
import { rawConnection } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, startApp } from '../../src/test-support.ts';

let running: RunningApp;
beforeAll(async () => {
  running = await startApp({ VERIFY_WORKERS: '1' });
});
afterAll(() => running?.close());

const connect = async (target: string) => {
  const connection = await rawConnection(running.url);
  // A path is no host: the Host names the service, as a client's would (P586 refuses `Host: /health`).
  const host = target.startsWith('/') ? '127.0.0.1' : target;
  connection.write(`CONNECT ${target} HTTP/1.1\r\nhost: ${host}\r\n\r\n`);
  const raw = await connection.closed();
  const allow = /^allow:(.*)$/im.exec(raw)?.[1]?.trim();
  return { status: raw.split('\r\n')[0], allow, raw };
};

/** What `Allow` a 405 to another method on the same path carries. */
const allowOf = async (method: string, path: string) =>
  (await fetch(`${running.url}${path}`, { method })).headers.get('allow');

describe('P273: CONNECT to a path answers with the methods the path allows', () => {
  it.each([
    ['/health', 'DELETE'],
    ['/verify', 'PUT'],
  ])('CONNECT %s: 405 with the Allow another refused method gets', async (path, other) => {
    const answer = await connect(path);
    expect(answer.status, answer.raw).toBe('HTTP/1.1 405 Method Not Allowed');
    const expected = await allowOf(other, path);
    expect(expected).toBeTruthy();
    expect(answer.allow).toBe(expected);
    expect(answer.raw).toMatch(/^connection: close/im);
  });

  it('CONNECT to a path with no route: 404 as for any method, no Allow', async () => {
    const answer = await connect('/no-such-path');
    expect(answer.status, answer.raw).toBe('HTTP/1.1 404 Not Found');
    expect(answer.allow).toBeUndefined();
    expect(answer.raw).toContain('"code":"NOT_FOUND"');
    expect(answer.raw).toMatch(/^connection: close/im);
  });

  it('CONNECT host:port (a tunnel): 405, and Allow says no method is allowed on it', async () => {
    const answer = await connect('example.com:443');
    expect(answer.status, answer.raw).toBe('HTTP/1.1 405 Method Not Allowed');
    expect(answer.raw).toMatch(/^allow: *\r?$/im);
    expect(answer.raw).toContain('opens no tunnel');
  });
});
