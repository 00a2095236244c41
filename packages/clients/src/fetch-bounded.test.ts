// fetchBounded over a real local HTTP server (P167): each fault is the kind its caller maps, and what the server
// does to the exchange (redirect, drip, flood, a lying length) ends it as the callers' hostile tests expect.
import {
  answerJson,
  dripForever,
  freePort,
  type HostileFront,
  lieAboutLength,
  redirectTo,
  startHostileFront,
} from '@proto/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BoundedFetchError, type BoundedFetchFault, fetchBounded } from './fetch-bounded.ts';

let front: HostileFront;
let base: string;
/** How often the host the redirect points at was asked. */
const elsewhereHits = () => front.requests.filter((r) => r.path === '/elsewhere').length;

beforeAll(async () => {
  front = await startHostileFront({
    '/ok': (_request, res) => answerJson(res, 200, '{"a":1}'),
    '/redirect': (_request, res) => redirectTo(res, `${base}/elsewhere`),
    '/elsewhere': (_request, res) => res.writeHead(200).end('followed'),
    '/length-lie': (_request, res) => lieAboutLength(res, { first: '{' }),
    '/flood': (_request, res) => res.writeHead(200).end('x'.repeat(4096)),
    '/drip': (_request, res) => dripForever(res, { everyMs: 50 }),
    '/not-modified': (_request, res) => res.writeHead(404).end('not read'),
  });
  base = front.url;
});

afterAll(async () => {
  await front.close();
});

async function faultOf(
  path: string,
  options: { timeoutMs?: number; maxBytes?: number; signal?: AbortSignal } = {},
) {
  const error = await fetchBounded(`${base}${path}`, { timeoutMs: 500, ...options }).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(BoundedFetchError);
  return (error as BoundedFetchError).fault;
}

describe('fetchBounded', () => {
  it('an honest answer is read in full, any status being an answer', async () => {
    const answer = await fetchBounded(`${base}/ok`, { timeoutMs: 2000 });
    expect(answer).toMatchObject({ status: 200, ok: true });
    expect(answer.text()).toBe('{"a":1}');
  });

  it('a redirect is a fault naming its status, and the host it points at is never asked', async () => {
    const hits = elsewhereHits();
    expect(await faultOf('/redirect')).toEqual({ kind: 'redirect', status: 307 });
    expect(elsewhereHits()).toBe(hits);
  });

  it('a declared length over the cap is refused at once, saying what it declared', async () => {
    const started = performance.now();
    const fault = await faultOf('/length-lie', { maxBytes: 1024, timeoutMs: 10_000 });
    expect(performance.now() - started).toBeLessThan(5000);
    expect(fault.kind).toBe('too-large');
    const { error } = fault as Extract<BoundedFetchFault, { kind: 'too-large' }>;
    expect([error.declared, error.maxBytes]).toEqual([500 * 1024 * 1024, 1024]);
  });

  it('a body streaming past the cap is cut there', async () => {
    // A timeout far off: on a loaded machine 500 ms can pass before the first chunk, and the cap is what is tested.
    const fault = await faultOf('/flood', { maxBytes: 1024, timeoutMs: 10_000 });
    expect(fault.kind).toBe('too-large');
    expect((fault as Extract<BoundedFetchFault, { kind: 'too-large' }>).error.declared).toBeUndefined();
  });

  it('a body that drips past the timeout is a timeout of the whole exchange, not an unreachable host', async () => {
    const fault = await faultOf('/drip');
    expect(fault).toMatchObject({ kind: 'timeout', timeoutMs: 500 });
  });

  it("the caller's own signal ends it too, and is not called this exchange's timeout", async () => {
    const fault = await faultOf('/drip', { signal: AbortSignal.timeout(100) });
    expect(fault.kind).toBe('unreachable');
  });

  it('a closed port is unreachable', async () => {
    const port = await freePort();
    const error = await fetchBounded(`http://127.0.0.1:${port}/`, { timeoutMs: 2000 }).catch((e) => e);
    expect((error as BoundedFetchError).fault.kind).toBe('unreachable');
  });

  it('a status whose body is not wanted is answered without reading it; failWith makes the caller error', async () => {
    const answer = await fetchBounded(`${base}/not-modified`, {
      timeoutMs: 2000,
      readBody: (status) => status === 200,
    });
    expect([answer.status, answer.bytes.byteLength]).toEqual([404, 0]);
    class Mine extends Error {}
    await expect(
      fetchBounded(`${base}/redirect`, { timeoutMs: 2000, failWith: (f) => new Mine(f.kind) }),
    ).rejects.toThrow(Mine);
  });
});
