// Brief "cbor3" (P590): the anchor's one body-taking route, POST /anchor, refuses the hostile CBOR and JSON table
// (duplicate keys, values JSON has no form for, tags, indefinite lengths, lying lengths, prototype members, lone
// surrogates, 1e400, UTF-16) with 400 PROTO-E001 in its reader's words, and queues nothing. The real service over HTTP.
import { createStoreTarget, type StoreTarget } from '@proto/store/testing';
import { hostileBodies, hostileMismatches, type ListeningApp, listenOnPort0 } from '@proto/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashOf, OPERATOR, testApp } from '../../src/testing/app.ts';

/** Nothing listens on port 9: POST /anchor only queues. */
const NOWHERE = 'http://127.0.0.1:9';

describe('P590: hostile bodies on POST /anchor', () => {
  let target: StoreTarget;
  let anchor: ListeningApp<FastifyInstance>;

  beforeAll(async () => {
    target = await createStoreTarget('sqlite', 'anchor-cbor3');
    anchor = await listenOnPort0(await testApp({ TL_URL: NOWHERE }, await target.open()));
  }, 60_000);
  afterAll(async () => {
    await anchor?.close();
    await target?.cleanup();
  });

  it('every hostile body is 400 E001 (415 for a foreign charset), and nothing is queued', async () => {
    const hash = hashOf('cbor3 hostile bodies');
    const table = hostileBodies({ bundle_hash: hash, chain: 'transparency-log' });
    const headers = { authorization: `Bearer ${OPERATOR}` };
    expect(await hostileMismatches(`${anchor.url}/anchor`, table, { headers })).toEqual([]);
    expect((await fetch(`${anchor.url}/anchor/${hash}`)).status).toBe(404);
  });
});
