// The HTTP floor of `pnpm bench` (issue 14, P98): the floor server sends the service's captured answer
// back byte for byte (Fastify and bare node:http), held so its connections arrive at the service's
// rate, and the floor table's arithmetic. Not timed: what the floor costs is the benchmark's to say.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  decodeFloorAnswer,
  encodeFloorAnswer,
  type FloorAnswer,
  type FloorKind,
  floorRow,
  holdMsFor,
  replayedHeaders,
  startFloor,
} from './http-floor.ts';

const dir = mkdtempSync(join(tmpdir(), 'http-floor-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const answer: FloorAnswer = {
  status: 200,
  headers: { 'content-type': 'application/json; charset=utf-8', vary: 'Accept', 'x-request-id': 'r1' },
  body: Buffer.from('{"verified":true,"checks":{"schema":"pass"}}'),
};

describe('the HTTP floor', () => {
  it("keeps every header of the service's answer but those the server writes for each answer", () => {
    expect(
      replayedHeaders([
        ['Content-Type', 'application/cbor'],
        ['content-length', '99'],
        ['Date', 'Thu, 26 Nov 2026 10:00:00 GMT'],
        ['connection', 'keep-alive'],
        ['keep-alive', 'timeout=72'],
        ['transfer-encoding', 'chunked'],
        ['x-request-id', 'abc'],
      ]),
    ).toEqual({ 'content-type': 'application/cbor', 'x-request-id': 'abc' });
  });

  it('carries an answer with binary bytes through its file unchanged', () => {
    const cbor: FloorAnswer = { ...answer, body: Buffer.from([0xa1, 0x00, 0xff, 0x0a, 0x0d]) };
    expect(decodeFloorAnswer(encodeFloorAnswer(cbor))).toEqual(cbor);
  });

  it("holds each answer so closed-loop connections arrive at the service's rate (Little's law)", () => {
    expect(holdMsFor(8, 320)).toBe(25);
    expect(holdMsFor(8, 80)).toBe(100);
    // A row that answered nothing has no rate to match: the floor answers at once.
    expect(holdMsFor(8, 0)).toBe(0);
    expect(holdMsFor(8, Number.NaN)).toBe(0);
  });

  it("puts the service's main thread above the floor's main thread in the last column", () => {
    const line = floorRow(
      'v2 elevated (10)',
      'json',
      'fastify',
      { service: 318.4, floor: 311.6 },
      { main: 0.53, other: 0.37 },
      { all: 0.3, main: 0.21 },
    );
    expect(line.split(/\s+/).slice(-8)).toEqual([
      '318',
      '312',
      '0.530',
      '0.370',
      '0.300',
      '0.210',
      '0.090',
      '0.320',
    ]);
    expect(line.startsWith('v2 elevated (10)    json   fastify')).toBe(true);
  });

  for (const kind of ['fastify', 'node'] as FloorKind[]) {
    it(`${kind}: answers a POST with the captured status, headers and bytes, after the hold`, async () => {
      const floor = await startFloor(kind, join(dir, `${kind}.json`), answer, 30);
      try {
        const started = performance.now();
        const reply = await fetch(`${floor.url}/verify`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ signed_bundle: { padding: 'x'.repeat(100_000) } }),
        });
        const elapsed = performance.now() - started;
        expect(reply.status).toBe(200);
        expect(Buffer.from(await reply.arrayBuffer())).toEqual(answer.body);
        expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(reply.headers.get('vary')).toBe('Accept');
        expect(reply.headers.get('x-request-id')).toBe('r1');
        expect(reply.headers.get('content-length')).toBe(String(answer.body.length));
        expect(elapsed).toBeGreaterThanOrEqual(29);
        const cbor = await fetch(`${floor.url}/verify`, {
          method: 'POST',
          headers: { 'content-type': 'application/cbor' },
          body: new Uint8Array([0xa0]),
        });
        expect(cbor.status).toBe(200);
        await cbor.arrayBuffer();
        expect(await (await fetch(`${floor.url}/requests`)).text()).toBe('2');
      } finally {
        floor.child.kill('SIGTERM');
      }
    });
  }
});
