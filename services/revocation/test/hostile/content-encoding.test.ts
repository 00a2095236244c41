// A body whose Content-Encoding the services do not decode must not be acted on as if it were plain: a proxy or
// filter in front that honours the header reads something else (or nothing) where the service read a record to
// write. RFC 9110 §15.5.16: 415 with the codings accepted. Over real HTTP, on the revocation service's write
// route and the verification service's /verify. P160.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import * as write from './test-helpers.ts';

const routes = write.writeRoutesForFile();

const json = { 'content-type': 'application/json' };

describe('Content-Encoding the services do not decode', () => {
  it.each(['gzip', 'deflate', 'br', 'identity, gzip', 'x-unknown'])(
    'a revocation labelled %s is refused with 415 and nothing is revoked',
    async (coding) => {
      const agent = `did:web:encoded.example:${coding.replace(/\W/g, '')}`;
      const answer = await write.postRevocation(routes(), write.revocationBody(agent), {
        ...json,
        'content-encoding': coding,
      });
      expect(answer.status).toBe(415);
      expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'PROTO-E001' } });
      expect(answer.headers['accept-encoding']).toBe('identity');
      expect(await write.lookUpStatus(routes(), agent)).toBe(404);
    },
  );

  it('a gzip body that really is gzip is refused the same way, not inflated', async () => {
    const body = gzipSync(write.revocationBody('did:web:zipped.example'));
    const answer = await write.postRevocation(routes(), body, { ...json, 'content-encoding': 'gzip' });
    expect(answer.status).toBe(415);
  });

  it('identity, in any case, is the body as sent', async () => {
    const body = write.revocationBody('did:web:identity.example:a');
    const answer = await write.postRevocation(routes(), body, { ...json, 'content-encoding': 'Identity' });
    expect(answer.status).toBe(201);
  });

  it('/verify refuses a labelled body with 415 in the shared error shape', async () => {
    const answer = await write.postAsIs(
      `${routes().verification.url}/verify`,
      Buffer.from('{"signed_bundle":{}}'),
      {
        ...json,
        'content-encoding': 'gzip',
      },
    );
    expect(answer.status).toBe(415);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'PROTO-E001' } });
    expect(answer.headers['x-request-id']).toMatch(/\S/);
  });
});
