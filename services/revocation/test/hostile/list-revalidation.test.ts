// A cache or client that revalidates the list with If-Modified-Since alone must not be told 304 when a
// newer list (a new revocation) was issued in the same second as the Last-Modified it holds: HTTP dates
// have whole seconds, the lists do not. Brief "redservices"; P153.
import { listenOnPort0, tempDirSync } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRevocationApp } from '../../src/app.ts';
import { loadRevocationConfig } from '../../src/config.ts';
import { ISSUER, JURISDICTION, TOKEN } from '../../src/test-support.ts';

let now = Date.parse('2026-03-01T12:00:00.100Z');
let app: FastifyInstance;
let url: string;
let listUrl: string;
const dir = tempDirSync('revocation-ims');

beforeAll(async () => {
  const config = loadRevocationConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: dir.dir,
    OPERATOR_TOKEN: TOKEN,
    ISSUER,
    JURISDICTION,
    MAX_EVENT_LOOP_DELAY_MS: '0',
  });
  app = await buildRevocationApp({ config, logger: false, timer: false, clock: () => new Date(now) });
  url = (await listenOnPort0(app)).url;
  listUrl = `${url}${app.protocolProfile.wellKnown.revocations}`;
});
afterAll(async () => {
  await app?.close();
  dir.remove();
});

async function list(headers: Record<string, string> = {}) {
  const response = await fetch(listUrl, { headers });
  const text = await response.text();
  return { response, list: text === '' ? undefined : (JSON.parse(text) as { list_number: number }) };
}

describe('If-Modified-Since revalidation of the revocation list', () => {
  it('a list issued later in the same second is a 200, not a 304', async () => {
    const first = await list();
    expect(first.list?.list_number).toBe(1);
    const lastModified = first.response.headers.get('last-modified') ?? '';
    expect(lastModified).not.toBe('');

    now += 500; // 12:00:00.600, the same whole second
    const revoked = await fetch(`${url}/revocations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ agent_id: 'did:web:agent.example:revoked', reason: 'compromised' }),
    });
    expect(revoked.status).toBe(201);
    await revoked.arrayBuffer();

    const again = await list({ 'if-modified-since': lastModified });
    expect(again.response.status).toBe(200);
    expect(again.list?.list_number).toBe(2);
  });

  it('still answers 304 to the Last-Modified of the list it serves, once its second has passed', async () => {
    now += 2_000;
    const current = await list();
    const lastModified = current.response.headers.get('last-modified') ?? '';
    const again = await list({ 'if-modified-since': lastModified });
    expect(again.response.status).toBe(304);
    // The stated date is never after the service's clock (RFC 9110 §8.8.2.1).
    expect(Date.parse(lastModified)).toBeLessThanOrEqual(now);
  });
});
