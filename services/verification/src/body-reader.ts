// Reads a POST /verify body off the socket into the one buffer the verification thread then receives by
// transfer (P129). Fastify's `parseAs: 'buffer'` keeps every chunk until the end and joins them into a new
// buffer: a second copy of the body on the main thread, whose chunks stay alive until the join. Here a
// body with a Content-Length is copied chunk by chunk into a buffer of that size (a body that arrives as
// one chunk owning its memory is taken as it is, no copy), and a chunked body is joined once at the end,
// as before. Errors are Fastify's own, so the service's error handler answers them as it did: 413 beyond
// the body limit, 400 when the bytes received do not match the Content-Length.
import { errorCodes, type FastifyRequest } from 'fastify';

const { FST_ERR_CTP_BODY_TOO_LARGE, FST_ERR_CTP_INVALID_CONTENT_LENGTH } = errorCodes;

/** True when `bytes` is the only view of its memory, so it can be transferred without a copy. */
export function ownsItsMemory(bytes: Uint8Array): boolean {
  const buffer = bytes.buffer;
  return buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength;
}

type Done = (error: Error | null, bytes?: Buffer) => void;

/**
 * A Fastify content-type parser (raw payload form): `done` gets the whole body, or the error Fastify's
 * buffer parser would have raised. `limit`: the route's body limit.
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
  const most = length ?? limit;
  let received = 0;
  /** The body when it came as one chunk of its own (Content-Length known). */
  let whole: Buffer | undefined;
  /** The body so far when it comes in pieces with a Content-Length: one buffer of that size. */
  let into: Buffer | undefined;
  /** The pieces of a chunked body (no Content-Length), joined once at the end. */
  const pieces: Buffer[] = [];

  const finish = (error: Error | null, bytes?: Buffer) => {
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onError);
    done(error, bytes);
  };

  function onData(chunk: Buffer | string) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const at = received;
    received += bytes.length;
    if (received > most) {
      // Only a chunked body can pass the limit here; a Content-Length body is cut at its length by Node.
      finish(
        length === undefined ? new FST_ERR_CTP_BODY_TOO_LARGE() : new FST_ERR_CTP_INVALID_CONTENT_LENGTH(),
      );
      return;
    }
    if (length === undefined) {
      pieces.push(bytes);
    } else if (at === 0 && bytes.length === length && ownsItsMemory(bytes)) {
      whole = bytes;
    } else {
      // Its own memory (never Node's shared pool), so the worker gets it by transfer.
      into ??= Buffer.allocUnsafeSlow(length);
      bytes.copy(into, at);
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
    // One piece of its own is the body; several are joined into a buffer of their own (concat of
    // 4 KB or more never uses the shared pool; a smaller body is copied to the worker, which costs little).
    finish(
      null,
      first !== undefined && pieces.length === 1 && ownsItsMemory(first)
        ? first
        : Buffer.concat(pieces, received),
    );
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
