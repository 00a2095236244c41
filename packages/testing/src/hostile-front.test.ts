// A front that passes honest traffic on (forwardTo) must deliver what the client sent end to end: the token of a
// guarded upstream (the log's /add, the anchor service's POST /anchor) and the other end-to-end headers (P184).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerJson } from './hostile-answers.ts';
import { forwardTo, type HostileFront, startHostileFront } from './hostile-front.ts';
import { requestAsIs } from './request-as-is.ts';

let upstream: HostileFront;
let front: HostileFront;

beforeAll(async () => {
  upstream = await startHostileFront((request, res) =>
    answerJson(res, 200, { method: request.method, body: request.text() }),
  );
  front = await startHostileFront(async (request, res) => {
    const answer = await forwardTo(`${upstream.url}${request.url}`, request);
    answerJson(res, answer.status, await answer.text());
  });
});

afterAll(async () => {
  await front?.close();
  await upstream?.close();
});

describe('forwardTo passes the end-to-end headers on', () => {
  it('the authorization header, the content type and the other end-to-end headers reach the upstream', async () => {
    const from = upstream.hits();
    const answer = await fetch(`${front.url}/add?x=1`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer log-operator-token',
        'content-type': 'application/json; charset=utf-8',
        accept: 'application/json',
        'if-none-match': '"v1"',
        'x-request-id': 'req-42',
      },
      body: '{"bundle_hash":"sha256:00"}',
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ method: 'POST', body: '{"bundle_hash":"sha256:00"}' });
    const seen = upstream.requests.slice(from);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.url).toBe('/add?x=1');
    expect(seen[0]?.headers).toMatchObject({
      authorization: 'Bearer log-operator-token',
      'content-type': 'application/json; charset=utf-8',
      accept: 'application/json',
      'if-none-match': '"v1"',
      'x-request-id': 'req-42',
    });
  });

  it('hop-by-hop headers stay with the front (the upstream exchange is its own connection)', async () => {
    const from = upstream.hits();
    // Over node:http: fetch drops a Connection header before it is sent.
    const answer = await requestAsIs(`${front.url}/root`, {
      headers: {
        authorization: 'Bearer t',
        'x-hop': 'only-to-the-front',
        connection: 'x-hop',
        te: 'trailers',
      },
    });
    expect(answer.status).toBe(200);
    const headers = upstream.requests.slice(from)[0]?.headers ?? {};
    expect(headers['authorization']).toBe('Bearer t');
    expect(headers['x-hop']).toBeUndefined();
    expect(headers['te']).toBeUndefined();
    expect(headers['host']).toBe(new URL(upstream.url).host);
  });

  it('a GET is forwarded without a body', async () => {
    const from = upstream.hits();
    const answer = await fetch(`${front.url}/proof/3`);
    expect(await answer.json()).toEqual({ method: 'GET', body: '' });
    expect(upstream.requests.slice(from)[0]?.url).toBe('/proof/3');
  });
});
