// One-pass strict CBOR decoding for the verification hot path: the same refusals, messages and values as
// service-kit's `decodeCbor` (PROTOCOL §8.2: strict check, then cbor-x, then the `_b64` mapping: three
// walks), built in a single walk straight into the JSON-shaped value. Issue 14 item 2, P69.
// The CBOR codec alone, not the package index (Fastify, pino, ioredis, prom-client): P72.
import { CborError, decodeCbor } from '@proto/service-kit/cbor';

/** Deepest nesting accepted on the wire, as in service-kit's decoder. */
const MAX_DEPTH = 128;
/** Text no longer than this is read in JavaScript when it is ASCII (cheaper than a native call). */
const SHORT_TEXT = 48;
const TWO_POW_32 = 4_294_967_296;
/** 2^53 - 1 split at 32 bits: the high word's largest value. */
const MAX_SAFE_HIGH = 0x1f_ffff;

// Keeps a leading U+FEFF as the character it is (cbor-x does the same for values).
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Inputs whose exact answer depends on the reference decoder's own order of work: a duplicate key or a
 * key that collides after `_b64` renaming (which error wins depends on the rest of the bytes), and a key
 * starting with a byte-order mark (the reference compares keys with the mark stripped). They are rare
 * and always refused or unusual, so they are answered by the reference decoder itself.
 */
class AskReference {}
const ASK_REFERENCE = new AskReference();

/** The decoding state of one call (the worker decodes one body at a time; nothing here is re-entered). */
const NO_BYTES = new Uint8Array(0);
const NO_BUFFER = Buffer.alloc(0);
const NO_VIEW = new DataView(new ArrayBuffer(0));
let src: Uint8Array = NO_BYTES;
let buf: Buffer = NO_BUFFER;
let view: DataView = NO_VIEW;
let pos = 0;

function need(n: number): void {
  if (pos + n > src.length) throw new CborError(`truncated CBOR at byte ${pos}`);
}

function readArgument(info: number, at: number): number {
  if (info < 24) return info;
  if (info === 24) {
    need(1);
    return src[pos++]!;
  }
  if (info === 25) {
    need(2);
    const v = view.getUint16(pos);
    pos += 2;
    return v;
  }
  if (info === 26) {
    need(4);
    const v = view.getUint32(pos);
    pos += 4;
    return v;
  }
  if (info === 27) {
    need(8);
    const high = view.getUint32(pos);
    const low = view.getUint32(pos + 4);
    pos += 8;
    if (high > MAX_SAFE_HIGH) throw new CborError(`integer or length above 2^53 at byte ${at}`);
    return high * TWO_POW_32 + low;
  }
  if (info === 31) throw new CborError(`indefinite length at byte ${at}`);
  throw new CborError(`reserved additional information ${info} at byte ${at}`);
}

/** UTF-8 text of `length` bytes at `pos`; short ASCII is built here, the rest by the fatal decoder. */
function readText(length: number, at: number): string {
  need(length);
  const start = pos;
  const end = start + length;
  pos = end;
  if (length <= SHORT_TEXT) {
    let i = start;
    while (i < end && src[i]! < 0x80) i++;
    // ASCII: each byte is its character (latin1 reads it as such, without validation).
    if (i === end) return buf.toString('latin1', start, end);
  }
  try {
    return utf8.decode(src.subarray(start, end));
  } catch {
    throw new CborError(`invalid UTF-8 text at byte ${at}`);
  }
}

function readMap(count: number, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Keys whose byte-string value was stored as `key_b64` (a later `key` would be a duplicate).
  let renamed: string[] | undefined;
  for (let i = 0; i < count; i++) {
    const keyAt = pos;
    need(1);
    const keyHead = src[pos++]!;
    if (keyHead >> 5 !== 3) throw new CborError(`map key is not a text string at byte ${keyAt}`);
    const length = readArgument(keyHead & 0x1f, keyAt);
    if (
      length >= 3 &&
      pos + 3 <= src.length &&
      src[pos] === 0xef &&
      src[pos + 1] === 0xbb &&
      src[pos + 2] === 0xbf
    )
      throw ASK_REFERENCE;
    const key = readText(length, keyAt);
    if (key === '__proto__') throw new CborError(`forbidden map key "__proto__" at byte ${keyAt}`);
    if (Object.hasOwn(out, key) || renamed?.includes(key) === true) throw ASK_REFERENCE;
    let name = key;
    // PROTOCOL §8.2 `cborPayloadToJson`: a byte string under `k` becomes base64 text under `k_b64`.
    if (pos < src.length && src[pos]! >> 5 === 2) {
      name = `${key}_b64`;
      if (Object.hasOwn(out, name)) throw ASK_REFERENCE;
      if (renamed === undefined) renamed = [key];
      else renamed.push(key);
    }
    out[name] = readItem(depth + 1);
  }
  return out;
}

function readItem(depth: number): unknown {
  if (depth > MAX_DEPTH) throw new CborError(`nesting deeper than ${MAX_DEPTH}`);
  const at = pos;
  need(1);
  const head = src[pos++]!;
  const info = head & 0x1f;
  switch (head >> 5) {
    case 0:
      return readArgument(info, at);
    case 1:
      return -1 - readArgument(info, at);
    case 2: {
      const length = readArgument(info, at);
      need(length);
      const start = pos;
      pos += length;
      return buf.toString('base64', start, pos);
    }
    case 3:
      return readText(readArgument(info, at), at);
    case 4: {
      const count = readArgument(info, at);
      const items: unknown[] = [];
      for (let i = 0; i < count; i++) items.push(readItem(depth + 1));
      return items;
    }
    case 5:
      return readMap(readArgument(info, at), depth);
    case 6:
      throw new CborError(`tags are not allowed (byte ${at})`);
    default:
      // Major type 7: only false, true and null carry meaning in JSON.
      if (info === 20) return false;
      if (info === 21) return true;
      if (info === 22) return null;
      if (info >= 25 && info <= 27)
        throw new CborError(`floating-point numbers are not allowed (byte ${at})`);
      if (info === 23) throw new CborError(`undefined is not allowed (byte ${at})`);
      throw new CborError(`simple value ${info} is not allowed (byte ${at})`);
  }
}

/**
 * Strictly decodes one CBOR item to plain JSON values (byte strings → `_b64` base64 text), in one walk.
 * Same value or same CborError as service-kit's `decodeCbor` for every input (fuzzed in cbor-decode.test.ts).
 */
export function decodeCborStrict(bytes: Uint8Array): unknown {
  if (bytes.length === 0) throw new CborError('empty CBOR body');
  src = bytes;
  buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  pos = 0;
  try {
    const value = readItem(0);
    if (pos !== bytes.length) throw new CborError(`trailing bytes after the CBOR item (byte ${pos})`);
    return value;
  } catch (error) {
    if (error === ASK_REFERENCE) return decodeCbor(bytes);
    throw error;
  } finally {
    // Drop the references: a transferred body may be large.
    src = NO_BYTES;
    buf = NO_BUFFER;
    view = NO_VIEW;
  }
}
