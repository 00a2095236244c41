// Strict CBOR decoding in one walk: PROTOCOL §8.2's refusals checked and the JSON-shaped value (byte strings
// as `_b64` base64 text) built in the same pass over the bytes. P69 (one walk), P82 (one decoder, its rules).
import { CborError } from './cbor-error.ts';

/**
 * Most levels of arrays and maps accepted on the wire, counted as the strict JSON reader counts them (P2, P592): the
 * outermost is level 1, scalars add none. Before, 129 levels with an empty innermost container were read here and
 * refused as JSON. (The canonical-JSON depth rule, D2, is the verifier's business.)
 */
const MAX_DEPTH = 128;
/** Text no longer than this is read in JavaScript when it is ASCII (cheaper than a native call). */
const SHORT_TEXT = 48;
const TWO_POW_32 = 4_294_967_296;
/** Map keys no longer than this are looked up in KEYS before any string is made (P131). */
const CACHED_KEY = 32;
/** Slots of the key cache (a power of two): a bundle's distinct key names are a few dozen. */
const KEY_SLOTS = 1024;
/** 2^53 - 1 split at 32 bits: the high word's largest value. */
const MAX_SAFE_HIGH = 0x1f_ffff;

// A leading U+FEFF is a character of the text, in keys and values alike (P82): never stripped.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

// The state of the current call. Decoding is synchronous and calls no outside code, so it is never re-entered.
const NO_BYTES = new Uint8Array(0);
const NO_BUFFER = Buffer.alloc(0);
const NO_VIEW = new DataView(new ArrayBuffer(0));
let src: Uint8Array = NO_BYTES;
let buf: Buffer = NO_BUFFER;
let view: DataView = NO_VIEW;
let pos = 0;

/**
 * P131: the strings of recent short ASCII map keys, by a hash of their bytes, and each one's `_b64` name.
 * A hit is compared byte by byte with the key's text, so it is that text: the cache only spares making the
 * string (a native call) and making it a property name again (V8 interns each key it stores). Bundles repeat
 * the same few dozen names thousands of times.
 */
const keyTexts: (string | undefined)[] = new Array(KEY_SLOTS).fill(undefined);
const keyB64Names: (string | undefined)[] = new Array(KEY_SLOTS).fill(undefined);
/** The slot of the key readKey returned last, or -1 when it was not cached (then `_b64` is made anew). */
let keySlot = -1;

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

/** A map key's text: readText's, from the key cache when the bytes are a short ASCII key seen before. */
function readKey(length: number, at: number): string {
  keySlot = -1;
  if (length > CACHED_KEY || pos + length > src.length) return readText(length, at);
  const start = pos;
  const end = start + length;
  let hash = length;
  let i = start;
  for (; i < end; i++) {
    const b = src[i]!;
    if (b >= 0x80) break;
    hash = Math.imul(hash ^ b, 0x01000193);
  }
  if (i !== end) return readText(length, at);
  const slot = (hash ^ (hash >>> 15)) & (KEY_SLOTS - 1);
  const cached = keyTexts[slot];
  keySlot = slot;
  if (cached !== undefined && cached.length === length) {
    let j = 0;
    while (j < length && cached.charCodeAt(j) === src[start + j]) j++;
    if (j === length) {
      pos = end;
      return cached;
    }
  }
  const text = buf.toString('latin1', start, end);
  pos = end;
  keyTexts[slot] = text;
  keyB64Names[slot] = undefined;
  return text;
}

/** `key_b64`, made once per cached key. */
function b64NameOf(key: string): string {
  if (keySlot < 0) return `${key}_b64`;
  let name = keyB64Names[keySlot];
  if (name === undefined) {
    name = `${key}_b64`;
    keyB64Names[keySlot] = name;
  }
  return name;
}

/**
 * A map's members in byte order. P82: a key is refused when the same text came before in this map
 * (duplicate), and a member's JSON name (`k`, or `k_b64` for a byte string) when an earlier member of
 * the map already has that name (collision after renaming); the first refusal in byte order is the answer.
 */
function readMap(count: number, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Keys whose byte-string value was stored as `key_b64`: with `out`'s own names they are the keys seen. A set,
  // made at the first byte string: an array searched for every later key was quadratic in the members (P227).
  let renamed: Set<string> | undefined;
  for (let i = 0; i < count; i++) {
    const keyAt = pos;
    need(1);
    const keyHead = src[pos++]!;
    if (keyHead >> 5 !== 3) throw new CborError(`map key is not a text string at byte ${keyAt}`);
    const key = readKey(readArgument(keyHead & 0x1f, keyAt), keyAt);
    if (key === '__proto__') throw new CborError(`forbidden map key "__proto__" at byte ${keyAt}`);
    const bytesFollow = pos < src.length && src[pos]! >> 5 === 2;
    if (Object.hasOwn(out, key)) {
      // The name of an earlier member: an earlier key, or an earlier byte string's `_b64` name.
      if (!(key.endsWith('_b64') && renamed?.has(key.slice(0, -4)) === true))
        throw new CborError(`duplicate map key ${JSON.stringify(key)} at byte ${keyAt}`);
      if (!bytesFollow) throw renamingCollision(key, keyAt);
    } else if (renamed?.has(key) === true) {
      throw new CborError(`duplicate map key ${JSON.stringify(key)} at byte ${keyAt}`);
    }
    let name = key;
    // PROTOCOL §8.2 `cborPayloadToJson`: a byte string under `k` becomes base64 text under `k_b64`.
    if (bytesFollow) {
      name = b64NameOf(key);
      if (Object.hasOwn(out, name)) throw renamingCollision(name, keyAt);
      if (renamed === undefined) renamed = new Set([key]);
      else renamed.add(key);
    }
    out[name] = readItem(depth + 1);
  }
  return out;
}

const tooDeep = (): CborError => new CborError(`nesting deeper than ${MAX_DEPTH}`);

function renamingCollision(name: string, at: number): CborError {
  return new CborError(`key ${JSON.stringify(name)} appears twice after byte-string renaming at byte ${at}`);
}

function readItem(depth: number): unknown {
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
      if (depth >= MAX_DEPTH) throw tooDeep();
      const count = readArgument(info, at);
      const items: unknown[] = [];
      for (let i = 0; i < count; i++) items.push(readItem(depth + 1));
      return items;
    }
    case 5:
      if (depth >= MAX_DEPTH) throw tooDeep();
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
 * Strictly decodes one CBOR item to plain JSON values (byte strings → `_b64` base64 text). Refuses, with a
 * CborError naming the byte: tags, floats, `undefined` and other simple values, indefinite and reserved
 * lengths, non-text map keys, `__proto__`, duplicate keys and `_b64` name collisions, invalid UTF-8,
 * integers beyond 2^53 - 1, nesting deeper than 128, truncation and trailing bytes.
 */
export function decodeCbor(bytes: Uint8Array): unknown {
  if (bytes.length === 0) throw new CborError('empty CBOR body');
  src = bytes;
  buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  pos = 0;
  try {
    const value = readItem(0);
    if (pos !== bytes.length) throw new CborError(`trailing bytes after the CBOR item (byte ${pos})`);
    return value;
  } finally {
    // Drop the references: a transferred body may be large.
    src = NO_BYTES;
    buf = NO_BUFFER;
    view = NO_VIEW;
  }
}
