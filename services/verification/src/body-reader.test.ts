// How POST /verify and POST /verify/batch read a body off the socket, over raw HTTP/1.1 against the listening
// service: sized by Content-Length, chunked, in many pieces, empty, over the limit, and with a Content-Length
// that lies; a batch cut across reads at every kind of place its splitters look at. Every case must end in an
// answer (or a closed connection) within seconds, and the service must go on answering. And how the reader
// frees what it has copied (P134). SPEC.md Limits (1 MB, 413), D12 (the /verify 400 shape), P129, P134.
import { connect, Socket } from 'node:net';
import { Readable } from 'node:stream';
import { encodeCbor } from '@proto/service-kit';
import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { takeBatchItems } from './batch-items.ts';
import { readBodyBytes } from './body-reader.ts';
import { type RunningApp, sampleBundle, startApp } from './test-support.ts';

const LIMIT = 1_048_576;

interface RawAnswer {
  /** The status of the first response on the connection, or undefined when the server sent nothing. */
  readonly status: number | undefined;
  /** Everything the server sent before it closed the connection. */
  readonly text: string;
}

/**
 * Writes `head` then each of `pieces` (a macrotask apart, so they reach the server as separate reads),
 * optionally half-closes, and collects what comes back until the server closes the connection. A hang
 * fails the test by its timeout rather than by vitest's.
 */
function rawExchange(
  url: string,
  head: string,
  pieces: readonly Uint8Array[],
  options: { readonly halfClose?: boolean; readonly timeoutMs?: number } = {},
): Promise<RawAnswer> {
  const { port, hostname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true });
    const received: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(`no end within ${options.timeoutMs ?? 5000} ms: ${Buffer.concat(received).toString()}`),
      );
    }, options.timeoutMs ?? 5000);
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    // The server ended its side (Connection: close): end ours, which closes the socket.
    socket.on('end', () => socket.end());
    socket.on('error', () => {
      // A reset after the answer is fine: what was received is judged.
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(received).toString('latin1');
      const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({ status: match ? Number(match[1]) : undefined, text });
    });
    socket.on('connect', async () => {
      socket.write(head);
      for (const piece of pieces) {
        await new Promise((r) => setTimeout(r, 5));
        if (socket.destroyed) return;
        socket.write(piece);
      }
      if (options.halfClose === true) socket.end();
    });
  });
}

const headOf = (type: string, headers: Record<string, string>, path = '/verify') =>
  `POST ${path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-type: ${type}\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;

/** The body of the first response. */
const bodyOf = (answer: RawAnswer) => answer.text.slice(answer.text.indexOf('\r\n\r\n') + 4);

/** Splits bytes into `n` pieces of about equal size. */
function split(bytes: Uint8Array, n: number): Uint8Array[] {
  const size = Math.ceil(bytes.length / n);
  const pieces: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) pieces.push(bytes.subarray(at, at + size));
  return pieces;
}

/** Chunked transfer encoding of `pieces`, with the final zero-length chunk. */
function chunked(pieces: readonly Uint8Array[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const piece of pieces) {
    out.push(Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]));
  }
  out.push(Buffer.from('0\r\n\r\n'));
  return out;
}

describe('POST /verify body reading over raw HTTP (P129)', () => {
  let running: RunningApp;
  let uncached: RunningApp;
  let json: Buffer;
  let cbor: Uint8Array;
  beforeAll(async () => {
    [running, uncached] = await Promise.all([startApp(), startApp({ VERIFICATION_CACHE_MAX_ENTRIES: '0' })]);
    const request = { signed_bundle: sampleBundle({ tier: 'standard', entries: 4 }).signed_bundle };
    json = Buffer.from(JSON.stringify(request));
    cbor = encodeCbor(request);
  });
  afterAll(() => Promise.all([running.close(), uncached.close()]));

  /** The service still answers a plain request after whatever the test sent. */
  const stillAnswers = async (target: RunningApp) => {
    const answer = await rawExchange(
      target.url,
      headOf('application/json', { 'content-length': String(json.length) }),
      [json],
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(bodyOf(answer))).toMatchObject({ verified: true });
  };

  it.each([
    ['JSON in one piece', 'application/json', 1],
    ['JSON in many pieces', 'application/json', 9],
    ['CBOR in one piece', 'application/cbor', 1],
    ['CBOR in many pieces', 'application/cbor', 7],
  ])('verifies %s sized by Content-Length (cache on and off)', async (_label, type, pieces) => {
    const bytes = type === 'application/json' ? json : cbor;
    for (const target of [running, uncached]) {
      const answer = await rawExchange(
        target.url,
        headOf(type, { 'content-length': String(bytes.length) }),
        split(bytes, pieces),
      );
      expect(answer.status).toBe(200);
      expect(JSON.parse(bodyOf(answer))).toMatchObject({ verified: true, version: '2.0' });
    }
  });

  it.each([
    ['JSON', 'application/json'],
    ['CBOR', 'application/cbor'],
  ])('verifies a chunked %s body (no Content-Length)', async (_label, type) => {
    const bytes = type === 'application/json' ? json : cbor;
    for (const target of [running, uncached]) {
      const answer = await rawExchange(
        target.url,
        headOf(type, { 'transfer-encoding': 'chunked' }),
        chunked(split(bytes, 5)),
      );
      expect(answer.status).toBe(200);
      expect(JSON.parse(bodyOf(answer))).toMatchObject({ verified: true });
    }
  });

  it.each([
    ['Content-Length: 0', { 'content-length': '0' }, [] as Uint8Array[]],
    ['an empty chunked body', { 'transfer-encoding': 'chunked' }, [Buffer.from('0\r\n\r\n')]],
  ])('answers %s with the /verify 400 (E001)', async (_label, headers, pieces) => {
    for (const target of [running, uncached]) {
      const answer = await rawExchange(target.url, headOf('application/json', headers), pieces);
      expect(answer.status).toBe(400);
      expect(JSON.parse(bodyOf(answer))).toEqual({
        verified: false,
        errors: ['Request body is empty'],
        error_details: [
          { code: 'PROTO-E001', check: 'request', message: 'Request body is empty', retryable: false },
        ],
      });
    }
  });

  it('answers a Content-Length over the limit with 413 before the body arrives', async () => {
    const answer = await rawExchange(
      running.url,
      headOf('application/json', { 'content-length': String(LIMIT + 1) }),
      [],
    );
    expect(answer.status).toBe(413);
    expect(JSON.parse(bodyOf(answer))).toEqual({
      error: { code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining(String(LIMIT)), retryable: false },
    });
    await stillAnswers(running);
  });

  it('reads a body of exactly the limit (here no verify request: 400)', async () => {
    const atLimit = Buffer.alloc(LIMIT, 0x20);
    const read = await rawExchange(
      uncached.url,
      headOf('application/json', { 'content-length': String(LIMIT) }),
      split(atLimit, 16),
    );
    expect(read.status).toBe(400);
    expect(JSON.parse(bodyOf(read))).toMatchObject({ verified: false, errors: ['Invalid JSON body'] });
  });

  it.each([
    ['JSON', 'application/json'],
    ['CBOR', 'application/cbor'],
  ])('answers a chunked %s body beyond the limit with 413 and stays up', async (_label, type) => {
    const tooBig = Buffer.alloc(LIMIT + 10, 0x20);
    for (const target of [running, uncached]) {
      const answer = await rawExchange(
        target.url,
        headOf(type, { 'transfer-encoding': 'chunked' }),
        chunked(split(tooBig, 20)),
      );
      expect(answer.status).toBe(413);
      expect(JSON.parse(bodyOf(answer))).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
      await stillAnswers(target);
    }
  });

  it('answers a Content-Length shorter than the bytes sent with a 4xx (the body is cut at the length)', async () => {
    for (const target of [running, uncached]) {
      const answer = await rawExchange(
        target.url,
        headOf('application/json', { 'content-length': String(json.length - 20) }),
        [json],
      );
      expect(answer.status).toBe(400);
      // The bytes past the length are read as a next request, which is no HTTP: the kit's refusal waits for
      // the /verify 400 for the cut body (P170), which closes the connection, so that 400 is what is read.
      expect(answer.text).toMatch(/"errors":\["Invalid JSON body"\]/);
      await stillAnswers(target);
    }
  });

  it('ends a request whose Content-Length is longer than the bytes sent when the client stops sending', async () => {
    for (const target of [running, uncached]) {
      const answer = await rawExchange(
        target.url,
        headOf('application/json', { 'content-length': String(json.length + 100) }),
        [json],
        { halfClose: true },
      );
      // Either a 4xx or the connection closed without an answer; never a hang, never a 2xx or a 5xx.
      if (answer.status !== undefined) {
        expect(answer.status).toBeGreaterThanOrEqual(400);
        expect(answer.status).toBeLessThan(500);
      }
      await stillAnswers(target);
    }
  });

  it('ends a chunked request cut off before its last chunk when the client stops sending', async () => {
    const pieces = chunked(split(json, 4)).slice(0, 2);
    for (const target of [running, uncached]) {
      const answer = await rawExchange(
        target.url,
        headOf('application/json', { 'transfer-encoding': 'chunked' }),
        pieces,
        {
          halfClose: true,
        },
      );
      if (answer.status !== undefined) {
        expect(answer.status).toBeGreaterThanOrEqual(400);
        expect(answer.status).toBeLessThan(500);
      }
      await stillAnswers(target);
    }
  });
});

describe('POST /verify/batch body reading over raw HTTP (P134)', () => {
  const BATCH_LIMIT = 400_000;
  let batchApp: RunningApp;
  let requests: string[];
  let cborItems: Uint8Array[];
  beforeAll(async () => {
    batchApp = await startApp({
      VERIFY_RATE_LIMIT_PER_MINUTE: '0',
      VERIFY_BATCH_MAX_BYTES: String(BATCH_LIMIT),
    });
    requests = (['routine', 'standard', 'elevated'] as const).map((tier) =>
      JSON.stringify({ signed_bundle: sampleBundle({ tier, entries: 2 }).signed_bundle }),
    );
    cborItems = requests.map((r) => encodeCbor(JSON.parse(r)));
  });
  afterAll(() => batchApp.close());

  /** Every bundle of the batch answered, in an NDJSON answer (the text holds the chunked framing too). */
  const expectThreeVerified = (answer: RawAnswer) => {
    expect(answer.status).toBe(200);
    expect(answer.text.match(/"verified":true/g)).toHaveLength(3);
    expect(answer.text).not.toMatch(/"verified":false/);
  };

  /** `bytes` cut at each of `cuts` (sorted, inside the body): the pieces the socket is fed. */
  const cutAt = (bytes: Uint8Array, cuts: readonly number[]) =>
    [0, ...cuts].map((from, i) => bytes.subarray(from, cuts[i] ?? bytes.length));

  /**
   * Where each format's splitter keeps state across bytes: inside a string (JSON: a quote, an escape-free
   * run), at and right after a newline or a top-level comma, and inside and right after a CBOR item's head.
   */
  function bodiesAndCuts(): { label: string; type: string; body: Buffer; cuts: number[][] }[] {
    const ndjson = Buffer.from(`${requests.join('\n')}\n`);
    const array = Buffer.from(`[${requests.join(' , ')}]`);
    const sequence = Buffer.concat(cborItems);
    const newline = ndjson.indexOf(0x0a);
    const comma = array.indexOf(' , ');
    // A string of the first bundle: its opening quote, and a cut in the middle of its text.
    const stringAt = (body: Buffer) => body.indexOf('"signed_bundle"') + 1;
    const second = cborItems[0]!.length;
    return [
      {
        label: 'NDJSON',
        type: 'application/x-ndjson',
        body: ndjson,
        cuts: [
          [stringAt(ndjson)],
          [stringAt(ndjson) + 5],
          [newline],
          [newline + 1],
          [newline - 1, newline + 1],
        ],
      },
      {
        label: 'a JSON array',
        type: 'application/json',
        body: array,
        cuts: [[1], [stringAt(array)], [stringAt(array) + 5], [comma + 1], [comma + 2], [array.length - 1]],
      },
      {
        label: 'a CBOR sequence',
        type: 'application/cbor-seq',
        body: sequence,
        // 1 and 2: inside the first item's head and its first key's head; then around the second item's start.
        cuts: [[1], [2], [second - 1], [second], [second + 1], [second + 2], [second, second + 1]],
      },
    ];
  }

  it('answers every bundle whatever read boundaries the body is cut at, sized by Content-Length and chunked', async () => {
    for (const { label, type, body, cuts } of bodiesAndCuts()) {
      for (const at of cuts) {
        const pieces = cutAt(body, at);
        const sized = await rawExchange(
          batchApp.url,
          headOf(type, { 'content-length': String(body.length) }, '/verify/batch'),
          pieces,
        );
        expect(sized.status, `${label} cut at ${at.join(',')}`).toBe(200);
        expectThreeVerified(sized);
        const chunkedAnswer = await rawExchange(
          batchApp.url,
          headOf(type, { 'transfer-encoding': 'chunked' }, '/verify/batch'),
          chunked(pieces),
        );
        expectThreeVerified(chunkedAnswer);
      }
    }
  });

  it('answers a batch over its byte limit with 413, announced or chunked, and stays up', async () => {
    const tooBig = Buffer.alloc(BATCH_LIMIT + 10, 0x20);
    const announced = await rawExchange(
      batchApp.url,
      headOf('application/x-ndjson', { 'content-length': String(tooBig.length) }, '/verify/batch'),
      [],
    );
    expect(announced.status).toBe(413);
    const streamed = await rawExchange(
      batchApp.url,
      headOf('application/x-ndjson', { 'transfer-encoding': 'chunked' }, '/verify/batch'),
      chunked(split(tooBig, 12)),
    );
    expect(streamed.status).toBe(413);
    expect(JSON.parse(bodyOf(streamed))).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    const ndjson = Buffer.from(`${requests.join('\n')}\n`);
    expectThreeVerified(
      await rawExchange(
        batchApp.url,
        headOf('application/x-ndjson', { 'content-length': String(ndjson.length) }, '/verify/batch'),
        split(ndjson, 3),
      ),
    );
  });

  it('answers a batch with a Content-Length longer than the bytes sent with a 4xx or a close, and stays up', async () => {
    const ndjson = Buffer.from(`${requests.join('\n')}\n`);
    const answer = await rawExchange(
      batchApp.url,
      headOf('application/x-ndjson', { 'content-length': String(ndjson.length + 50) }, '/verify/batch'),
      [ndjson],
      { halfClose: true },
    );
    if (answer.status !== undefined) {
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
    }
    expectThreeVerified(
      await rawExchange(
        batchApp.url,
        headOf('application/x-ndjson', { 'content-length': String(ndjson.length) }, '/verify/batch'),
        [ndjson],
      ),
    );
  });
});

describe('the body reader frees what it has copied (P134)', () => {
  /** Bytes with memory of their own, as Node's HTTP parser hands each piece of a body over. */
  const owned = (text: string) => {
    const bytes = Buffer.allocUnsafeSlow(text.length);
    bytes.write(text, 'latin1');
    return bytes;
  };

  /**
   * Feeds `pieces` to readBodyBytes one at a time through a request stream whose socket is a real one
   * (`fromSocket`) or not (fastify.inject's), and gives what it read.
   */
  async function read(
    pieces: readonly Buffer[],
    headers: Record<string, string>,
    fromSocket: boolean,
    limit = 1000,
  ): Promise<{ error: Error | null; bytes: Buffer | undefined }> {
    const raw = new Readable({ read() {} });
    Object.assign(raw, { socket: fromSocket ? new Socket() : {} });
    const request = { headers, raw } as unknown as FastifyRequest;
    const result = new Promise<{ error: Error | null; bytes: Buffer | undefined }>((resolve) =>
      readBodyBytes(request, raw, limit, (error, bytes) => resolve({ error, bytes })),
    );
    for (const piece of pieces) {
      // A turn apart, so each piece is its own 'data' event, as separate socket reads are.
      await new Promise((r) => setImmediate(r));
      raw.push(piece);
    }
    await new Promise((r) => setImmediate(r));
    raw.push(null);
    return result;
  }

  it('frees each socket piece once copied into the body sized by Content-Length', async () => {
    const pieces = [owned('{"signed'), owned('_bundle"'), owned(':{}}')];
    const { error, bytes } = await read(pieces, { 'content-length': '20' }, true);
    expect(error).toBeNull();
    expect(bytes?.toString()).toBe('{"signed_bundle":{}}');
    expect(pieces.map((p) => p.byteLength)).toEqual([0, 0, 0]);
    expect(bytes?.byteOffset).toBe(0);
    expect(bytes?.byteLength).toBe(bytes?.buffer.byteLength);
  });

  it('frees the pieces of a chunked body once joined, and those of a body refused over the limit', async () => {
    const pieces = [owned('0123456789'), owned('abcdefghij')];
    const joined = await read(pieces, {}, true);
    expect(joined.bytes?.toString()).toBe('0123456789abcdefghij');
    expect(pieces.map((p) => p.byteLength)).toEqual([0, 0]);

    const tooMany = [owned('0123456789'), owned('abcdefghij'), owned('klm')];
    const refused = await read(tooMany, {}, true, 22);
    expect(refused.error).toMatchObject({ code: 'FST_ERR_CTP_BODY_TOO_LARGE' });
    expect(tooMany.map((p) => p.byteLength)).toEqual([0, 0, 0]);
  });

  it('takes a body that came in one socket piece of its own as it is', async () => {
    const piece = owned('{"signed_bundle":{}}');
    const { bytes } = await read([piece], { 'content-length': '20' }, true);
    expect(bytes).toBe(piece);
    expect(piece.byteLength).toBe(20);
  });

  it("leaves a caller's own buffers (fastify.inject, no socket) and views of shared memory alone", async () => {
    const mine = [owned('{"signed'), owned('_bundle"'), owned(':{}}')];
    const injected = await read(mine, { 'content-length': '20' }, false);
    expect(injected.bytes?.toString()).toBe('{"signed_bundle":{}}');
    expect(mine.map((p) => p.toString())).toEqual(['{"signed', '_bundle"', ':{}}']);
    const whole = owned('{"signed_bundle":{}}');
    const copied = await read([whole], {}, false);
    expect(copied.bytes).not.toBe(whole);
    expect(whole.byteLength).toBe(20);

    // Small Buffers are slices of Node's shared pool: freeing one would free its neighbours.
    const pooled = [Buffer.from('{"signed'), Buffer.from('_bundle":{}}')];
    const fromPool = await read(pooled, { 'content-length': '20' }, true);
    expect(fromPool.bytes?.toString()).toBe('{"signed_bundle":{}}');
    expect(pooled.map((p) => p.toString())).toEqual(['{"signed', '_bundle":{}}']);
  });

  it('frees a batch body once its items are cut out, the items intact', () => {
    const body = owned('{"a":1}\n{"b":2}\n');
    const split = takeBatchItems(body, 'ndjson', 10);
    expect(body.byteLength).toBe(0);
    expect(split.ok && split.items.map((item) => Buffer.from(item).toString())).toEqual([
      '{"a":1}',
      '{"b":2}',
    ]);
    const refused = owned('[1,2,3]');
    expect(takeBatchItems(refused, 'json-array', 2)).toMatchObject({ ok: false, reason: 'too_many' });
    expect(refused.byteLength).toBe(0);
  });
});
