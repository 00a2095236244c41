// redteam4 (P585, P586): anyone on the network, against the real verification service over raw TCP. (1) A Host,
// X-Forwarded-*, Forwarded or absolute-form target naming the attacker's host must land in no answer (the console,
// the docs' Location, capabilities, a cached verdict) nor in what a later plain reader gets. (2) Framings a front and
// the service could read differently must be 400 with the connection closed; a kit refusal on /verify (no Host, a
// refused framing) was Fastify's 500 FST_ERR_FAILED_ERROR_SERIALIZATION, /verify's 400 schema being its verdict's.
import {
  documentedGetPaths,
  framingFaults,
  hostLeaks,
  postWithAttackerOrigin,
  sendFraming,
} from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningApp, sampleBundle, startApp } from '../../src/test-support.ts';

let app: RunningApp;
beforeAll(async () => {
  app = await startApp({ VERIFY_RATE_LIMIT_PER_MINUTE: '0' });
});
afterAll(() => app?.close());

const sample = sampleBundle({ tier: 'routine' });
const body = JSON.stringify({ signed_bundle: sample.signed_bundle });
const JSON_HEADERS = ['Content-Type: application/json'];

describe('redteam4: Host and framing edges on the verification service', () => {
  it("never names an attacker's host in an answer or a cached verdict (P586)", async () => {
    const verified = await postWithAttackerOrigin(app.url, '/verify', JSON_HEADERS, body);
    expect(verified.status).toBe(200);
    const paths = await documentedGetPaths(app.url, (name) => (name === 'kid' ? sample.agentKid : 'x'));
    expect(await hostLeaks(app.url, [...paths, '/'])).toEqual([]);
    // The same bundle again, plainly: the cached verdict is the one the attacker's request left.
    const again = await postWithAttackerOrigin(app.url, '/verify', JSON_HEADERS, body);
    expect(again.text).not.toMatch(/attacker-host/i);
  });

  it('refuses every smuggling framing with 400 and a closed connection (P585)', async () => {
    expect(await framingFaults(app.url, '/verify', JSON_HEADERS, () => body)).toEqual([]);
    expect(
      await framingFaults(
        app.url,
        '/verify/batch',
        ['Content-Type: application/x-ndjson'],
        () => `${body}\n`,
      ),
    ).toEqual([]);
  });

  it("answers a kit refusal on /verify in the shared error shape, not Fastify's 500 (P585)", async () => {
    for (const path of ['/verify', '/verify/batch']) {
      const answer = await sendFraming(
        app.url,
        `POST ${path} HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      const tail = answer.text.slice(answer.text.indexOf('\r\n\r\n') + 4);
      expect([path, answer.status, JSON.parse(tail).error?.code]).toEqual([path, 400, 'BAD_REQUEST']);
    }
  });
});
