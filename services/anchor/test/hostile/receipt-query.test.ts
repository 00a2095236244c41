// P217: GET /anchor/:bundle_hash is public; its `?chain=` goes to the store as a query parameter. A value that is no
// chain name reached PostgreSQL: a NUL (`%00`) there is "invalid byte sequence for encoding UTF8", and the public
// read answered 500 PROTO-E900 "Internal error" (retryable: true) and logged an error, at the will of any client.
// A chain name is what ETH_CHAIN_NAME accepts and the built-in names are (`^[a-z0-9][a-z0-9_.-]{0,63}$`); anything
// else is a bad request, answered before the store is asked. The real service over HTTP, on SQLite and, with
// DATABASE_URL, PostgreSQL.
import { createStoreTarget, dialectsUnderTest, type StoreTarget } from '@proto/store/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashOf, OPERATOR, testApp } from '../../src/testing/app.ts';

describe.each(dialectsUnderTest())('GET /anchor/:bundle_hash?chain= on %s', (dialect) => {
  let target: StoreTarget;
  let app: FastifyInstance;
  let base: string;
  const h = hashOf(`receipt query ${dialect}`);

  beforeAll(async () => {
    target = await createStoreTarget(dialect, `anchor-receipt-query-${dialect}`);
    // A log nobody answers: POST /anchor queues the request, which is all the reads below need.
    app = await testApp({ TL_URL: 'http://127.0.0.1:9' }, await target.open());
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    const queued = await fetch(`${base}/anchor`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
      body: JSON.stringify({ bundle_hash: h, chain: 'transparency-log' }),
    });
    expect(queued.status).toBe(202);
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await target?.cleanup();
  });

  const read = async (query: string) => {
    const res = await fetch(`${base}/anchor/${h}?${query}`);
    return { status: res.status, body: (await res.json()) as Record<string, Record<string, unknown>> };
  };

  it.each([
    ['a NUL', 'chain=transparency-log%00'],
    ['a lone NUL', 'chain=%00'],
    ['upper case', 'chain=Transparency-Log'],
    ['a space', 'chain=transparency%20log'],
    ['a leading dot', 'chain=.ethereum'],
    ['a non-ASCII letter', 'chain=%C3%A9ther'],
  ])('a chain with %s is a bad request (400 E001), never a 500', async (_what, query) => {
    const { status, body } = await read(query);
    expect(status).toBe(400);
    expect(body['error']).toMatchObject({ code: 'PROTO-E001', retryable: false });
  });

  it('a chain name, known or not, is looked up as before', async () => {
    expect((await read('chain=transparency-log')).status).toBe(200);
    expect((await read('chain=ethereum')).status).toBe(404);
    expect((await read('chain=base-sepolia_2.x')).status).toBe(404);
  });
});
