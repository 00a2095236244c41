// JSON is UTF-8 (RFC 8259 §8.1) and the services read every body as UTF-8. A body labelled with another charset
// would be read one way here and another way by a proxy or filter in front that honours the label: a write the
// filter saw as harmless (or as nothing) would be acted on. Such a body is refused with the 415 an unsupported
// Content-Type gets, before it is read, on every route. Over real HTTP, on the revocation service's write route
// and the verification service's /verify and /verify/batch. P175.
import { describe, expect, it } from 'vitest';
import * as write from './test-helpers.ts';

const routes = write.writeRoutesForFile();

const unsupported = { error: { code: 'PROTO-E001', retryable: false } };

describe('a body labelled with a charset other than UTF-8', () => {
  it.each([
    'application/json; charset=utf-16',
    'application/json; charset=UTF-16LE',
    'application/json;charset="iso-8859-1"',
    'application/json; charset=utf-8; charset=utf-16',
    'Application/JSON; Charset=Windows-1252',
  ])('a revocation sent as %s is refused with 415 and nothing is revoked', async (contentType) => {
    const agent = `did:web:charset.example:${contentType.replace(/\W/g, '')}`;
    const answer = await write.postRevocation(routes(), write.revocationBody(agent), {
      'content-type': contentType,
    });
    expect(answer.status).toBe(415);
    expect(JSON.parse(answer.text)).toMatchObject(unsupported);
    expect(JSON.parse(answer.text).error.message).toMatch(/charset/i);
    expect(await write.lookUpStatus(routes(), agent)).toBe(404);
  });

  it.each([
    ['application/json; charset=utf-8', 'a'],
    ['application/json; charset="UTF-8"', 'b'],
    ['application/json; charset=utf8', 'c'],
  ])('UTF-8 under any of its spellings (%s) is read as before', async (contentType, name) => {
    const agent = `did:web:charset.example:utf8:${name}`;
    const answer = await write.postRevocation(routes(), write.revocationBody(agent), {
      'content-type': contentType,
    });
    expect(answer.status).toBe(201);
  });

  it('/verify refuses a UTF-16 body with the shared 415, not a verdict about garbled JSON', async () => {
    const body = Buffer.from('{"signed_bundle":{}}', 'utf16le');
    const answer = await write.postAsIs(`${routes().verification.url}/verify`, body, {
      'content-type': 'application/json; charset=utf-16le',
    });
    expect(answer.status).toBe(415);
    expect(JSON.parse(answer.text)).toMatchObject(unsupported);
  });

  it.each(['application/json; charset=utf-16', 'application/x-ndjson; charset=iso-8859-1'])(
    '/verify/batch refuses a batch sent as %s whole',
    async (contentType) => {
      const answer = await write.postAsIs(`${routes().verification.url}/verify/batch`, Buffer.from('[{}]'), {
        'content-type': contentType,
      });
      expect(answer.status).toBe(415);
      expect(JSON.parse(answer.text)).toMatchObject(unsupported);
    },
  );
});
