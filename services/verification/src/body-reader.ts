// Reads a POST /verify or /verify/batch body off the socket into one buffer, and frees the socket's pieces of
// it as soon as they are copied (P134). V8 counts every byte of ArrayBuffer memory allocated on the main
// isolate since its last mark-compact towards the old generation's limit, and the main isolate allocates
// so little on its own heap that no scavenge frees a dead body's buffers first: with Fastify's
// `parseAs: 'buffer'` (every piece kept until the end, then joined into a second copy) about 8 MB of dead
// pieces and joins started incremental marking every ~10 maximum-60 bodies and every batch or two, marking the
// whole ~26 MB main heap on V8's helper threads each time. Freed here as they are used, they never add up.
// A body with a Content-Length is copied piece by piece into a buffer that grows to that size as it arrives (a
// body that arrives as one piece of its own is taken as it is); a chunked body is joined once at the end. Errors are Fastify's own,
// so the service's error handler answers them as before: 413 beyond the body limit, 400 when the bytes
// received do not match the Content-Length.
import { Socket } from 'node:net';
import { errorCodes, type FastifyRequest } from 'fastify';

const { FST_ERR_CTP_BODY_TOO_LARGE, FST_ERR_CTP_INVALID_CONTENT_LENGTH } = errorCodes;

/**
 * True when `bytes` is the only view of its memory: it can be moved to a worker or freed without touching
 * another view (a small Buffer is a slice of Node's shared pool).
 */
export function ownsItsMemory(bytes: Uint8Array): boolean {
  const buffer = bytes.buffer;
  return buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength;
}

/** ES2024's `ArrayBuffer.prototype.transfer` (Node 20+), not in the ES2023 lib the project compiles against. */
type Transferable = ArrayBuffer & { transfer(newLength: number): ArrayBuffer };

/**
 * Frees `bytes`' memory now, not at the main isolate's next mark-compact: a transfer to a zero-length buffer
 * detaches it, and V8 takes its bytes off the external memory it counts at once (P134). Only for bytes that
 * nothing else will read; a view of shared memory is left alone.
 */
export function releaseBytes(bytes: Uint8Array): void {
  if (ownsItsMemory(bytes) && bytes.byteLength > 0) (bytes.buffer as Transferable).transfer(0);
}

type Done = (error: Error | null, bytes?: Buffer) => void;

/**
 * The most of a body's Content-Length reserved before its bytes arrive. The length is the client's word: a
 * buffer of the whole length on the first byte let forty stalled connections declaring 8 MiB batches hold 335 MB
 * of external memory (P165). Past this the buffer doubles with what arrives, up to the length: a 1 MiB body
 * costs two more copies of at most half of it, against the ~5 ms its verification takes.
 */
export const BODY_RESERVE_BYTES = 256 * 1024;

/**
 * A buffer of its own (never Node's shared pool, so it can be moved to a worker or freed) for a body of
 * `length` bytes of which `needed` have arrived: the first `used` bytes of `old` copied in, `old` freed.
 */
function grownBody(old: Buffer | undefined, used: number, needed: number, length: number): Buffer {
  const size = Math.min(length, Math.max(needed, BODY_RESERVE_BYTES, 2 * (old?.length ?? 0)));
  const next = Buffer.allocUnsafeSlow(size);
  if (old !== undefined) {
    old.copy(next, 0, 0, used);
    releaseBytes(old);
  }
  return next;
}

/**
 * A Fastify content-type parser (raw payload form): `done` gets the whole body, or the error Fastify's buffer
 * parser would have raised. `limit`: the route's body limit. The body handed over is the reader's own (no
 * other code holds it), so the caller may move it to a worker or free it with `releaseBytes`.
 */
export function readBodyBytes(
  request: FastifyRequest,
  payload: NodeJS.ReadableStream,
  limit: number,
  done: Done,
): void {
  const declared = request.headers['content-length'];
  // Node's HTTP parser only lets a Content-Length of digits through, and never one with chunked encoding.
  const length = declared === undefined ? undefined : Number(declared);
  if (length !== undefined && length > limit) {
    done(new FST_ERR_CTP_BODY_TOO_LARGE());
    return;
  }
  // Pieces straight from a socket are the HTTP parser's copies, which nothing else holds; a payload passed in
  // by a caller in the same process (fastify.inject) or rewritten by a hook may be the caller's own buffer.
  const fromSocket = payload === request.raw && request.raw.socket instanceof Socket;
  const most = length ?? limit;
  let received = 0;
  /** The body when it came as one piece of its own (Content-Length known). */
  let whole: Buffer | undefined;
  /** The body so far when it comes in pieces with a Content-Length: one buffer, grown towards that size. */
  let into: Buffer | undefined;
  /** The pieces of a chunked body (no Content-Length), joined once at the end. */
  const pieces: Buffer[] = [];

  const dropPiece = (piece: Uint8Array) => {
    if (fromSocket) releaseBytes(piece);
  };
  const finish = (error: Error | null, bytes?: Buffer) => {
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onError);
    if (error !== null) {
      // Nothing of a refused body is read again.
      for (const piece of pieces) dropPiece(piece);
      if (whole !== undefined) dropPiece(whole);
      if (into !== undefined) releaseBytes(into);
    }
    done(error, bytes);
  };

  function onData(chunk: Buffer | string) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const at = received;
    received += bytes.length;
    if (received > most) {
      dropPiece(bytes);
      // Only a chunked body can pass the limit here; a Content-Length body is cut at its length by Node.
      finish(
        length === undefined ? new FST_ERR_CTP_BODY_TOO_LARGE() : new FST_ERR_CTP_INVALID_CONTENT_LENGTH(),
      );
      return;
    }
    if (length === undefined) {
      pieces.push(bytes);
    } else if (at === 0 && bytes.length === length && fromSocket && ownsItsMemory(bytes)) {
      whole = bytes;
    } else {
      if (into === undefined || into.length < received) into = grownBody(into, at, received, length);
      bytes.copy(into, at);
      dropPiece(bytes);
    }
  }

  function onEnd() {
    if (length !== undefined && received !== length) {
      finish(new FST_ERR_CTP_INVALID_CONTENT_LENGTH());
      return;
    }
    if (length !== undefined) {
      finish(null, whole ?? into ?? Buffer.alloc(0));
      return;
    }
    const first = pieces[0];
    if (first !== undefined && pieces.length === 1 && fromSocket && ownsItsMemory(first)) {
      finish(null, first);
      return;
    }
    // Several pieces are joined into a buffer of their own (a join of 4 KB or more never uses the shared
    // pool; a smaller body is copied to the worker, which costs little), and freed once joined.
    const joined = Buffer.concat(pieces, received);
    for (const piece of pieces) dropPiece(piece);
    pieces.length = 0;
    finish(null, joined);
  }

  function onError(error: Error & { statusCode?: number }) {
    if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400;
    finish(error);
  }

  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onError);
  payload.resume();
}

/**
 * A content-type parser (raw payload form) that reads the body with `readBodyBytes` and hands the route
 * `{ format, bytes }`: /verify's and /verify/batch's parsers differ only in the format and the limit.
 */
export function formatBodyParser<F extends string>(
  format: F,
  limitOf: (request: FastifyRequest) => number,
): (
  request: FastifyRequest,
  payload: NodeJS.ReadableStream,
  done: (error: Error | null, body?: { readonly format: F; readonly bytes: Buffer }) => void,
) => void {
  return (request, payload, done) => {
    readBodyBytes(request, payload, limitOf(request), (error, bytes) => {
      if (error !== null || bytes === undefined) done(error ?? new Error('no body'), undefined);
      else done(null, { format, bytes });
    });
  };
}
