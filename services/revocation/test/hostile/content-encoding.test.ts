// A body whose Content-Encoding the services do not decode must not be acted on as if it were plain: a proxy or
// filter in front that honours the header reads something else (or nothing) where the service read a record to
// write. RFC 9110 §15.5.16: 415 with the codings accepted. Over real HTTP, on the revocation service's write
// route and the verification service's /verify. P160.
import { gzipSync } from 'node:zlib';
import { requestAsIs } from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN } from '../../src/test-support.ts';
import { revocationBody, startWriteRoutes, type WriteRoutes } from './test-helpers.ts';

let routes: WriteRoutes;
beforeAll(async () => {
  routes = await startWriteRoutes();
});
afterAll(async () => {
  await routes?.close();
});

/** A POST with the headers as given (fetch would refuse or rewrite some of them). */
const post = (url: string, body: Buffer, headers: Record<string, string>) =>
  requestAsIs(url, { body, headers });

const writeHeaders = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

describe('Content-Encoding the services do not decode', () => {
  it.each(['gzip', 'deflate', 'br', 'identity, gzip', 'x-unknown'])(
    'a revocation labelled %s is refused with 415 and nothing is revoked',
    async (coding) => {
      const agent = `did:web:encoded.example:${coding.replace(/\W/g, '')}`;
      const answer = await post(`${routes.revocation.url}/revocations`, revocationBody(agent), {
        ...writeHeaders,
        'content-encoding': coding,
      });
      expect(answer.status).toBe(415);
      expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
      expect(answer.headers['accept-encoding']).toBe('identity');
      const lookedUp = await fetch(`${routes.revocation.url}/revocations/${encodeURIComponent(agent)}`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(lookedUp.status).toBe(404);
      await lookedUp.arrayBuffer();
    },
  );

  it('a gzip body that really is gzip is refused the same way, not inflated', async () => {
    const answer = await post(
      `${routes.revocation.url}/revocations`,
      gzipSync(revocationBody('did:web:zipped.example')),
      {
        ...writeHeaders,
        'content-encoding': 'gzip',
      },
    );
    expect(answer.status).toBe(415);
  });

  it('identity, in any case, is the body as sent', async () => {
    const answer = await post(
      `${routes.revocation.url}/revocations`,
      revocationBody('did:web:identity.example:a'),
      {
        ...writeHeaders,
        'content-encoding': 'Identity',
      },
    );
    expect(answer.status).toBe(201);
  });

  it('/verify refuses a labelled body with 415 in the shared error shape', async () => {
    const answer = await post(`${routes.verification.url}/verify`, Buffer.from('{"signed_bundle":{}}'), {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    expect(answer.status).toBe(415);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
    expect(answer.headers['x-request-id']).toMatch(/\S/);
  });
});
