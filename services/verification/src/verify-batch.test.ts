// POST /verify/batch over a listening server: one /verify result per bundle in order, JSON array and
// NDJSON and CBOR sequences, mixed valid/invalid items, a malformed item alone, 413 by count and bytes, the
// rate limit counted per bundle, all of a batch in one atomic Redis call (P78). Issue 14 item 3.
import { connect } from 'node:net';
import { decodeCbor, encodeCbor } from '@proto/service-kit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cborSequenceItems } from './cbor-sequence.ts';
import { postVerify, type RunningApp, sampleBundle, startApp } from './test-support.ts';

type Sample = ReturnType<typeof sampleBundle>;
let routine: Sample;
let elevated: Sample;
let v1: Sample;
let running: RunningApp;

beforeAll(async () => {
  routine = sampleBundle({ tier: 'routine', entries: 3 });
  elevated = sampleBundle({ tier: 'elevated', entries: 3 });
  v1 = sampleBundle({ version: '1.0', entries: 2 });
  running = await startApp({
    VERIFY_RATE_LIMIT_PER_MINUTE: '0',
    VERIFY_BATCH_MAX_ITEMS: '12',
    VERIFY_BATCH_MAX_BYTES: '400000',
  });
});
afterAll(() => running.close());

const request = (s: Sample) => ({ signed_bundle: s.signed_bundle });

function tampered(s: Sample) {
  const copy = structuredClone(s.signed_bundle) as { bundle: { audit_entries: Record<string, unknown>[] } };
  copy.bundle.audit_entries[0]!['outcome'] = 'something_else';
  return { signed_bundle: copy };
}

async function postBatch(
  body: string | Uint8Array,
  contentType: string,
  accept = '*/*',
  url = running.url,
): Promise<{ status: number; type: string | null; text: string; bytes: Uint8Array }> {
  const res = await fetch(`${url}/verify/batch`, {
    method: 'POST',
    headers: { 'content-type': contentType, accept },
    body,
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    text: Buffer.from(bytes).toString(),
    bytes,
  };
}

const CBOR_SEQ = 'application/cbor-seq';
const cborSequence = (parts: readonly Uint8Array[]) => Buffer.concat(parts);
const itemsOfSequence = (bytes: Uint8Array) =>
  [...cborSequenceItems(bytes)].map(([s, e]) => decodeCbor(bytes.subarray(s, e)) as Record<string, unknown>);

const linesOf = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** The /verify answer minus what differs between two runs (timing-free already; key ages are days). */
async function singleAnswer(body: unknown): Promise<Record<string, unknown>> {
  return (await postVerify(running.url, body)).json;
}

describe('POST /verify/batch', () => {
  it('answers one /verify result per bundle, in order, for a JSON array of mixed valid and invalid bundles', async () => {
    const items = [request(elevated), tampered(routine), request(v1), request(routine), tampered(elevated)];
    const res = await postBatch(JSON.stringify(items), 'application/json');
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/application\/x-ndjson/);
    const lines = linesOf(res.text);
    expect(lines.map((l) => l['verified'])).toEqual([true, false, true, true, false]);
    expect(lines.map((l) => l['version'])).toEqual(['2.0', '2.0', '1.0', '2.0', '2.0']);
    // The same result object as POST /verify, item by item.
    for (const [i, item] of items.entries()) expect(lines[i]).toEqual(await singleAnswer(item));
  });

  it('takes NDJSON (blank lines ignored) and keeps the order', async () => {
    const items = [request(v1), request(elevated), tampered(routine)];
    const body = `${items.map((i) => JSON.stringify(i)).join('\n')}\n\n`;
    const res = await postBatch(body, 'application/x-ndjson');
    expect(res.status).toBe(200);
    expect(linesOf(res.text).map((l) => [l['version'], l['verified']])).toEqual([
      ['1.0', true],
      ['2.0', true],
      ['2.0', false],
    ]);
  });

  it('answers a malformed item with the /verify 400 body in its place and verifies the others', async () => {
    const good = JSON.stringify(request(routine));
    const body = [good, '{"signed_bundle": {', '[1,2]', '{"no_bundle":true}', '{"a":1,"a":2}', good].join(
      '\n',
    );
    const res = await postBatch(body, 'application/x-ndjson');
    expect(res.status).toBe(200);
    const lines = linesOf(res.text);
    expect(lines).toHaveLength(6);
    expect(lines[0]!['verified']).toBe(true);
    expect(lines[5]!['verified']).toBe(true);
    for (const bad of lines.slice(1, 5)) {
      expect(bad['verified']).toBe(false);
      expect((bad['error_details'] as { code: string; check: string }[])[0]).toMatchObject({
        code: 'PROTO-E001',
        check: 'request',
      });
    }
    expect(String((lines[4]!['errors'] as string[])[0])).toMatch(/no canonical form/);
    // The same body /verify gives for the same malformed item.
    const single = await postVerify(running.url, '{"no_bundle":true}');
    expect(single.status).toBe(400);
    expect(lines[3]).toEqual(single.json);
  });

  it('finds item boundaries in a JSON array whose strings hold brackets, commas and escaped quotes', async () => {
    // The string sits inside the bundle (a member no signature covers): a request member /verify does not read is
    // refused (P272).
    const tricky = { signed_bundle: { ...routine.signed_bundle, note: 'a ] , } "\\" [ {' } };
    const res = await postBatch(JSON.stringify([tricky, request(v1)]), 'application/json');
    expect(res.status).toBe(200);
    expect(linesOf(res.text).map((l) => l['verified'])).toEqual([true, true]);
  });

  it('answers 413 beyond VERIFY_BATCH_MAX_ITEMS bundles', async () => {
    const line = JSON.stringify(request(v1));
    const body = Array.from({ length: 13 }, () => line).join('\n');
    const res = await postBatch(body, 'application/x-ndjson');
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text)).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE', retryable: false } });
    const array = await postBatch(
      `[${Array.from({ length: 13 }, () => line).join(',')}]`,
      'application/json',
    );
    expect(array.status).toBe(413);
    // Exactly the limit is fine.
    expect(
      (await postBatch(Array.from({ length: 12 }, () => line).join('\n'), 'application/x-ndjson')).status,
    ).toBe(200);
  });

  it('answers 413 beyond VERIFY_BATCH_MAX_BYTES, naming the batch limit', async () => {
    const res = await postBatch(`${'x'.repeat(400_001)}`, 'application/x-ndjson');
    expect(res.status).toBe(413);
    const error = (JSON.parse(res.text) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.message).toContain('400000');
  });

  it('answers 400 with the error shape for a body that is no batch at all', async () => {
    for (const [body, type] of [
      ['{"signed_bundle":{}}', 'application/json'],
      ['[{"signed_bundle":{}}', 'application/json'],
      ['[1] 2', 'application/json'],
      ['', 'application/x-ndjson'],
      ['\n\n', 'application/x-ndjson'],
    ] as const) {
      const res = await postBatch(body, type);
      expect(res.status, body).toBe(400);
      expect(JSON.parse(res.text), body).toMatchObject({
        error: { code: expect.any(String), retryable: false },
      });
    }
  });

  it('verifies more bundles than the pool holds at once, all in order', async () => {
    const items = Array.from({ length: 12 }, (_, i) => (i % 3 === 1 ? tampered(routine) : request(v1)));
    const res = await postBatch(items.map((i) => JSON.stringify(i)).join('\n'), 'application/x-ndjson');
    expect(linesOf(res.text).map((l) => l['verified'])).toEqual(items.map((_, i) => i % 3 !== 1));
  });

  it('takes a CBOR sequence, answers NDJSON by default and a CBOR sequence when asked, in order', async () => {
    const items = [request(elevated), tampered(routine), request(routine)];
    const body = cborSequence(items.map((i) => encodeCbor(i)));
    const ndjson = await postBatch(body, CBOR_SEQ);
    expect(ndjson.status).toBe(200);
    expect(ndjson.type).toMatch(/application\/x-ndjson/);
    const lines = linesOf(ndjson.text);
    expect(lines.map((l) => l['verified'])).toEqual([true, false, true]);
    for (const [i, item] of items.entries()) expect(lines[i]).toEqual(await singleAnswer(item));

    const cbor = await postBatch(body, CBOR_SEQ, CBOR_SEQ);
    expect(cbor.status).toBe(200);
    expect(cbor.type).toMatch(/application\/cbor-seq/);
    expect(itemsOfSequence(cbor.bytes)).toEqual(lines);
    // NDJSON in, CBOR sequence out.
    const mixed = await postBatch(
      items.map((i) => JSON.stringify(i)).join('\n'),
      'application/x-ndjson',
      CBOR_SEQ,
    );
    expect(itemsOfSequence(mixed.bytes)).toEqual(lines);
  });

  it('refuses a CBOR item as strictly as /verify does, alone, and a truncated tail without spoiling the items before it', async () => {
    const good = encodeCbor(request(routine));
    const tagged = Buffer.concat([Buffer.from([0xc0]), encodeCbor('2020-01-01')]);
    const float = Buffer.from([0xa1, 0x61, 0x61, 0xfb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0]);
    const duplicate = Buffer.from([0xa2, 0x61, 0x61, 0x01, 0x61, 0x61, 0x02]);
    const res = await postBatch(
      cborSequence([good, tagged, float, duplicate, good, good.subarray(0, 40)]),
      CBOR_SEQ,
      CBOR_SEQ,
    );
    expect(res.status).toBe(200);
    const answers = itemsOfSequence(res.bytes);
    expect(answers.map((a) => a['verified'])).toEqual([true, false, false, false, true, false]);
    const messages = answers.map((a) => String((a['errors'] as string[] | undefined)?.[0] ?? ''));
    expect(messages[1]).toMatch(/tags are not allowed/);
    expect(messages[2]).toMatch(/floating-point/);
    expect(messages[3]).toMatch(/duplicate map key/);
    expect(messages[5]).toMatch(/truncated/);
    for (const bad of [answers[1], answers[2], answers[3], answers[5]]) {
      expect((bad!['error_details'] as { code: string }[])[0]!.code).toBe('PROTO-E001');
    }
    // The same 400 body /verify gives for the same item.
    const single = await fetch(`${running.url}/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/cbor' },
      body: duplicate,
    });
    expect(single.status).toBe(400);
    expect(answers[3]).toEqual(await single.json());
  });

  it('applies the item and byte limits to CBOR sequences', async () => {
    const item = encodeCbor(request(routine));
    expect((await postBatch(cborSequence(Array.from({ length: 13 }, () => item)), CBOR_SEQ)).status).toBe(
      413,
    );
    expect((await postBatch(cborSequence(Array.from({ length: 12 }, () => item)), CBOR_SEQ)).status).toBe(
      200,
    );
    const huge = Buffer.concat([Buffer.from([0x5a, 0x00, 0x06, 0x1a, 0x80]), Buffer.alloc(400_000)]);
    expect((await postBatch(huge, CBOR_SEQ)).status).toBe(413);
    // A count that claims more items than there are bytes is one malformed item, not a hang.
    const liar = Buffer.from([0x9b, 0x00, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    const answer = await postBatch(liar, CBOR_SEQ);
    expect(answer.status).toBe(200);
    expect(linesOf(answer.text).map((l) => l['verified'])).toEqual([false]);
  });
});

/** The chunks of a chunked HTTP/1.1 answer as they were framed on the wire (the body's writes). */
async function chunkFrames(url: string, body: string): Promise<{ head: string; frames: Buffer[] }> {
  const { hostname, port } = new URL(url);
  const raw = await new Promise<Buffer>((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      // Not end(): a half-closed request is one the server need not answer. `Connection: close` ends it.
      socket.write(
        `POST /verify/batch HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/x-ndjson\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    });
    const parts: Buffer[] = [];
    socket.on('data', (part) => parts.push(part));
    socket.on('end', () => resolve(Buffer.concat(parts)));
    socket.on('error', reject);
  });
  const headEnd = raw.indexOf('\r\n\r\n');
  const frames: Buffer[] = [];
  let at = headEnd + 4;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at);
    const size = lineEnd === -1 ? 0 : Number.parseInt(raw.subarray(at, lineEnd).toString(), 16);
    if (!(size > 0)) break;
    frames.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return { head: raw.subarray(0, headEnd).toString(), frames };
}

describe('POST /verify/batch writes', () => {
  it('sends the answers that are ready together in one write, in order', async () => {
    // A slow bundle first: the quick items behind it (refused requests) are done when it is, and go out with it.
    const slow = sampleBundle({ tier: 'maximum', entries: 12 });
    const lines = [JSON.stringify(request(slow)), ...Array.from({ length: 11 }, (_, i) => `{"n":${i}}`)];
    const { head, frames } = await chunkFrames(running.url, lines.join('\n'));
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head).toMatch(/transfer-encoding: chunked/i);
    const answers = linesOf(Buffer.concat(frames).toString());
    expect(answers).toHaveLength(12);
    expect(answers[0]!['verified']).toBe(true);
    expect(answers.slice(1).every((a) => a['verified'] === false)).toBe(true);
    // One write per bundle would be 12 frames; the slow head's write carries the answers finished behind it.
    expect(frames.length).toBeLessThan(12);
    expect(linesOf(frames[0]!.toString()).length).toBeGreaterThan(1);
  });
});

describe('POST /verify/batch rate limit', () => {
  it('counts every bundle of a batch, not one per request', async () => {
    const limited = await startApp({ VERIFY_RATE_LIMIT_PER_MINUTE: '5' });
    try {
      const line = JSON.stringify(request(routine));
      const four = await postBatch(
        [line, line, line, line].join('\n'),
        'application/x-ndjson',
        '*/*',
        limited.url,
      );
      expect(four.status).toBe(200);
      const two = await postBatch([line, line].join('\n'), 'application/x-ndjson', '*/*', limited.url);
      expect(two.status).toBe(429);
      expect(two.text).toContain('"retryable"');
      expect(JSON.parse(two.text).error.message).toContain('per bundle');
    } finally {
      await limited.close();
    }
  });
});

const REDIS_URL = process.env['REDIS_URL'];

describe.skipIf(!REDIS_URL)('POST /verify/batch rate limit on the shared Redis (P78)', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(REDIS_URL!);
  });
  afterAll(async () => {
    await redis.quit();
  });

  const ndjsonOf = (count: number) =>
    Array.from({ length: count }, () => JSON.stringify(request(routine))).join('\n');
  /** Units taken from the budgets of this app: every counter under its key prefix, whatever the key. */
  const counted = async (app: RunningApp) => {
    const keys = await redis.keys(`${app.rateLimitKeyPrefix!}*`);
    const values = keys.length === 0 ? [] : await redis.mget(...keys);
    return values.reduce((sum, v) => sum + Number(v ?? 0), 0);
  };

  it('takes exactly N units for a batch of N, and refuses whole (taking none) a batch that does not fit', async () => {
    const limited = await startApp({ VERIFY_RATE_LIMIT_PER_MINUTE: '10' });
    try {
      expect((await postBatch(ndjsonOf(4), 'application/x-ndjson', '*/*', limited.url)).status).toBe(200);
      expect(await counted(limited)).toBe(4);
      const tooMany = await postBatch(ndjsonOf(7), 'application/x-ndjson', '*/*', limited.url);
      expect(tooMany.status).toBe(429);
      expect(JSON.parse(tooMany.text).error).toMatchObject({ code: 'PROTO-E700', retryable: true });
      expect(JSON.parse(tooMany.text).error.message).toContain('none were taken');
      const retryAfter = Number((await refusedHeaders(limited, 7)).get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(await counted(limited)).toBe(4);
      // The six left are all still there.
      expect((await postBatch(ndjsonOf(6), 'application/x-ndjson', '*/*', limited.url)).status).toBe(200);
      expect(await counted(limited)).toBe(10);
      expect((await postBatch(ndjsonOf(1), 'application/x-ndjson', '*/*', limited.url)).status).toBe(429);
      expect(await counted(limited)).toBe(10);
    } finally {
      await limited.close();
    }
  });

  it('never lets two concurrent batches together exceed the budget', async () => {
    for (let round = 0; round < 3; round++) {
      const limited = await startApp({ VERIFY_RATE_LIMIT_PER_MINUTE: '10' });
      try {
        const answers = await Promise.all(
          [6, 6, 6].map((n) => postBatch(ndjsonOf(n), 'application/x-ndjson', '*/*', limited.url)),
        );
        expect(answers.map((a) => a.status).sort()).toEqual([200, 429, 429]);
        expect(await counted(limited)).toBe(6);
      } finally {
        await limited.close();
      }
    }
  });

  it('charges a batch with two Redis round trips, whatever its size: a look before the body (P166), one charge', async () => {
    const limited = await startApp({ VERIFY_RATE_LIMIT_PER_MINUTE: '100' });
    const monitor = await new Redis(REDIS_URL!).monitor();
    try {
      // Loads the script into Redis (a first EVALSHA may be answered NOSCRIPT and sent again as EVAL).
      expect((await postBatch(ndjsonOf(1), 'application/x-ndjson', '*/*', limited.url)).status).toBe(200);
      const calls: string[][] = [];
      monitor.on('monitor', (_time: string, args: string[], source: string) => {
        // Commands a script runs are reported too, with a "lua" source: only client commands are round trips.
        if (!source.includes('lua') && args.some((a) => a.startsWith(limited.rateLimitKeyPrefix!)))
          calls.push(args);
      });
      // MONITOR reports commands from the moment it is on; a PING through it marks that moment.
      await redis.ping();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await postBatch(ndjsonOf(12), 'application/x-ndjson', '*/*', limited.url)).status).toBe(200);
      expect((await postBatch(ndjsonOf(5), 'application/x-ndjson', '*/*', limited.url)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(calls.length).toBe(4);
      expect(await counted(limited)).toBe(18);
    } finally {
      monitor.disconnect();
      await limited.close();
    }
  });
});

/** The headers of a refused batch of `count` bundles. */
async function refusedHeaders(app: RunningApp, count: number): Promise<Headers> {
  const body = Array.from({ length: count }, () => JSON.stringify(request(routine))).join('\n');
  const res = await fetch(`${app.url}/verify/batch`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson' },
    body,
  });
  await res.arrayBuffer();
  expect(res.status).toBe(429);
  return res.headers;
}
