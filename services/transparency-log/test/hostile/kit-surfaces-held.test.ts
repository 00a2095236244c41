// Attacks on the kit's shared surfaces that held when tried (brief "redkit"), kept as regression tests against the
// real log over HTTP: the console's static files cannot be left by any spelling of `..`; the operator token is read
// from one Authorization header only, never from the query; /metrics gets no series per path an attacker invents.
import { requestAsIs } from '@proto/testing';
import { describe, expect, it } from 'vitest';
import { TEST_OPERATOR_TOKEN } from '../../src/test-support.ts';
import { listeningLogForFile } from './test-helpers.ts';

const listeningLog = listeningLogForFile('kit-surfaces');
const url = () => listeningLog().url;

const addBody = Buffer.from('{}');

describe('held: the console static files', () => {
  it('no spelling of a way out of /console/ serves a file from outside it', async () => {
    const escapes = [
      '/console/..%2f..%2fpackage.json',
      '/console/%2e%2e/%2e%2e/package.json',
      '/console/..%5c..%5cpackage.json',
      '/console/%252e%252e/package.json',
      '/console/..%c0%af..%c0%afpackage.json',
      '/console/x%00.js',
      '/console/.env',
      '/console//etc/passwd',
    ];
    for (const path of escapes) {
      const answer = await requestAsIs(`${url()}${path}`, { path });
      expect([400, 403, 404], path).toContain(answer.status);
      expect(answer.headers['content-type'], path).toMatch(/^application\/json/);
      expect(answer.text, path).not.toContain('"dependencies"');
    }
  });
});

describe('held: the operator token', () => {
  it('a second Authorization header or a token in the query does not authorise', async () => {
    // node:http writes an array as repeated headers; Node's server keeps the first Authorization.
    const twoAuthorizations = {
      'content-type': 'application/json',
      authorization: ['Bearer not-the-token-0000000000', `Bearer ${TEST_OPERATOR_TOKEN}`],
    } as unknown as Record<string, string>;
    const wrongFirst = await requestAsIs(`${url()}/add`, { body: addBody, headers: twoAuthorizations });
    expect(wrongFirst.status).toBe(401);
    const query = `/add?access_token=${TEST_OPERATOR_TOKEN}&token=${TEST_OPERATOR_TOKEN}`;
    const inQuery = await requestAsIs(`${url()}${query}`, {
      path: query,
      body: addBody,
      headers: { 'content-type': 'application/json' },
    });
    expect(inQuery.status).toBe(401);
  });
});

describe('held: /metrics labels', () => {
  it('two hundred invented paths and an unusual method add no series of their own', async () => {
    for (let i = 0; i < 200; i++)
      await (await fetch(`${url()}/invented-${i}/${'x'.repeat(i)}`)).arrayBuffer();
    await requestAsIs(`${url()}/root`, { method: 'PROPFIND' });
    const text = await (await fetch(`${url()}/metrics`)).text();
    const routes = new Set(
      [...text.matchAll(/^proto_http_request_duration_seconds_count\{route="([^"]*)"/gm)].map((m) => m[1]),
    );
    expect([...routes].filter((route) => route?.includes('invented'))).toEqual([]);
    expect(routes.has('unmatched')).toBe(true);
  });
});
