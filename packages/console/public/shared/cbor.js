// The verify page's CBOR (RFC 8949) reader: shows a CBOR bundle it sends as-is to POST /verify. Issue 17 item 1.
// As strict as the service's decoder (PROTOCOL §8.2, P82), refusing the same inputs in the same words, so the
// page never shows a bundle that the service will refuse to read.
import { toBase64 } from './bytes.js';

/** Deepest nesting the service accepts. */
const MAX_DEPTH = 128;
/** Bytes that follow a head with additional information 24 to 27. */
const ARGUMENT_BYTES = { 24: 1, 25: 2, 26: 4, 27: 8 };
// A leading U+FEFF is a character of the text, in keys and values alike (P82): never stripped.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export class CborError extends Error {
  constructor(message) {
    super(message);
    this.name = 'CborError';
  }
}

/**
 * One CBOR item as the JSON form the service reads (a byte string is base64 text, renamed `k_b64` under key
 * `k`). Throws a CborError on what the service refuses: tags, floats, undefined and other simple values,
 * indefinite and reserved lengths, map keys that are not text, `__proto__`, a key twice (or two members with
 * one JSON name after renaming), invalid UTF-8, integers beyond 2^53 - 1, nesting deeper than 128,
 * truncation and trailing bytes. With several faults the first in byte order is named.
 */
export function decodeCbor(bytes) {
  if (bytes.length === 0) throw new CborError('empty CBOR body');
  let pos = 0;

  const need = (n) => {
    if (pos + n > bytes.length) throw new CborError(`truncated CBOR at byte ${pos}`);
  };

  /** The head's argument (a value, a length or a count); `at` is where the head starts. */
  const argument = (info, at) => {
    if (info < 24) return info;
    const size = ARGUMENT_BYTES[info];
    if (size === undefined) {
      if (info === 31) throw new CborError(`indefinite length at byte ${at}`);
      throw new CborError(`reserved additional information ${info} at byte ${at}`);
    }
    need(size);
    let value = 0;
    for (let i = 0; i < size; i++) value = value * 256 + bytes[pos + i];
    pos += size;
    // Exact up to 2^53; anything larger rounds to 2^53 or more, never below.
    if (value > Number.MAX_SAFE_INTEGER) throw new CborError(`integer or length above 2^53 at byte ${at}`);
    return value;
  };

  const text = (length, at) => {
    need(length);
    pos += length;
    try {
      return utf8.decode(bytes.subarray(pos - length, pos));
    } catch {
      throw new CborError(`invalid UTF-8 text at byte ${at}`);
    }
  };

  const map = (count, depth) => {
    const out = {};
    const keys = new Set();
    for (let i = 0; i < count; i++) {
      const at = pos;
      need(1);
      const head = bytes[pos++];
      if (head >> 5 !== 3) throw new CborError(`map key is not a text string at byte ${at}`);
      const key = text(argument(head & 31, at), at);
      if (key === '__proto__') throw new CborError(`forbidden map key "__proto__" at byte ${at}`);
      if (keys.has(key)) throw new CborError(`duplicate map key ${JSON.stringify(key)} at byte ${at}`);
      keys.add(key);
      // PROTOCOL §8.2: a byte string under `k` is the base64 text under `k_b64` in the JSON form.
      const name = pos < bytes.length && bytes[pos] >> 5 === 2 ? `${key}_b64` : key;
      if (Object.hasOwn(out, name))
        throw new CborError(
          `key ${JSON.stringify(name)} appears twice after byte-string renaming at byte ${at}`,
        );
      out[name] = item(depth + 1);
    }
    return out;
  };

  const item = (depth) => {
    if (depth > MAX_DEPTH) throw new CborError(`nesting deeper than ${MAX_DEPTH}`);
    const at = pos;
    need(1);
    const head = bytes[pos++];
    const info = head & 31;
    switch (head >> 5) {
      case 0:
        return argument(info, at);
      case 1:
        return -1 - argument(info, at);
      case 2: {
        const length = argument(info, at);
        need(length);
        pos += length;
        return toBase64(bytes.subarray(pos - length, pos));
      }
      case 3:
        return text(argument(info, at), at);
      case 4: {
        const count = argument(info, at);
        const items = [];
        for (let i = 0; i < count; i++) items.push(item(depth + 1));
        return items;
      }
      case 5:
        return map(argument(info, at), depth);
      case 6:
        throw new CborError(`tags are not allowed (byte ${at})`);
      default:
        if (info === 20) return false;
        if (info === 21) return true;
        if (info === 22) return null;
        if (info >= 25 && info <= 27)
          throw new CborError(`floating-point numbers are not allowed (byte ${at})`);
        if (info === 23) throw new CborError(`undefined is not allowed (byte ${at})`);
        throw new CborError(`simple value ${info} is not allowed (byte ${at})`);
    }
  };

  const value = item(0);
  if (pos !== bytes.length) throw new CborError(`trailing bytes after the CBOR item (byte ${pos})`);
  return value;
}
