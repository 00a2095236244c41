// How POST /verify reads a body off the socket, over raw HTTP/1.1 against the listening service: sized by
// Content-Length, chunked, in many pieces, empty, over the limit, and with a Content-Length that lies.
// Every case must end in an answer (or a closed connection) within seconds, and the service must go on
// answering. SPEC.md Limits (1 MB, 413), D12 (the /verify 400 shape), P129.
import { connect } from 'node:net';
import { encodeCbor } from '@proto/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const headOf = (type: string, headers: Record<string, string>) =>
  `POST /verify HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-type: ${type}\r\n${Object.entries(headers)
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
      // The bytes past the length are read as a next request, which is no HTTP: Node answers that 400 and
      // closes, whether or not the /verify 400 for the cut body went out first.
      expect(answer.text).toMatch(/"errors":\["Invalid JSON body"\]|"message":"Client Error"/);
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
