// Test oracles for the CBOR codec (tests only): cbor-x as the reference decoder behind a plain strict scan
// of PROTOCOL §8.2's rules as P82 states them, and the encoder as it was before P83 (cbor-x after a copy
// of the value), whose bytes the direct writer must reproduce.
import { isUtf8 } from 'node:buffer';
import { Decoder, Encoder } from 'cbor-x';
import { CborError } from './cbor-error.ts';

const MAX_DEPTH = 128;
const keyText = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Walks the encoded item and throws what P82's decoder refuses, with its message: the checks in a plain
 * form (a Set of keys and of JSON names per map, BigInt arguments), independent of the decoder's tricks.
 */
function strictScan(bytes: Uint8Array): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  const need = (n: number) => {
    if (pos + n > bytes.length) throw new CborError(`truncated CBOR at byte ${pos}`);
  };
  const readArgument = (info: number, at: number): number => {
    if (info < 24) return info;
    const size = { 24: 1, 25: 2, 26: 4, 27: 8 }[info];
    if (size === undefined) {
      if (info === 31) throw new CborError(`indefinite length at byte ${at}`);
      throw new CborError(`reserved additional information ${info} at byte ${at}`);
    }
    need(size);
    let v = 0n;
    for (let i = 0; i < size; i++) v = (v << 8n) | BigInt(view.getUint8(pos + i));
    pos += size;
    if (v > BigInt(Number.MAX_SAFE_INTEGER))
      throw new CborError(`integer or length above 2^53 at byte ${at}`);
    return Number(v);
  };
  const skipText = (length: number, at: number): Uint8Array => {
    need(length);
    const text = bytes.subarray(pos, pos + length);
    pos += length;
    if (!isUtf8(text)) throw new CborError(`invalid UTF-8 text at byte ${at}`);
    return text;
  };
  const item = (depth: number): void => {
    if (depth > MAX_DEPTH) throw new CborError(`nesting deeper than ${MAX_DEPTH}`);
    const at = pos;
    need(1);
    const head = bytes[pos++]!;
    const major = head >> 5;
    const info = head & 0x1f;
    if (major === 0 || major === 1) readArgument(info, at);
    else if (major === 2) {
      const length = readArgument(info, at);
      need(length);
      pos += length;
    } else if (major === 3) skipText(readArgument(info, at), at);
    else if (major === 4) {
      const count = readArgument(info, at);
      for (let i = 0; i < count; i++) item(depth + 1);
    } else if (major === 5) {
      const count = readArgument(info, at);
      const keys = new Set<string>();
      const names = new Set<string>();
      for (let i = 0; i < count; i++) {
        const keyAt = pos;
        need(1);
        const keyHead = bytes[pos++]!;
        if (keyHead >> 5 !== 3) throw new CborError(`map key is not a text string at byte ${keyAt}`);
        const key = keyText.decode(skipText(readArgument(keyHead & 0x1f, keyAt), keyAt));
        if (key === '__proto__') throw new CborError(`forbidden map key "__proto__" at byte ${keyAt}`);
        if (keys.has(key)) throw new CborError(`duplicate map key ${JSON.stringify(key)} at byte ${keyAt}`);
        keys.add(key);
        const name = pos < bytes.length && bytes[pos]! >> 5 === 2 ? `${key}_b64` : key;
        if (names.has(name))
          throw new CborError(
            `key ${JSON.stringify(name)} appears twice after byte-string renaming at byte ${keyAt}`,
          );
        names.add(name);
        item(depth + 1);
      }
    } else if (major === 6) throw new CborError(`tags are not allowed (byte ${at})`);
    else if (info === 20 || info === 21 || info === 22) return;
    else if (info >= 25 && info <= 27)
      throw new CborError(`floating-point numbers are not allowed (byte ${at})`);
    else if (info === 23) throw new CborError(`undefined is not allowed (byte ${at})`);
    else throw new CborError(`simple value ${info} is not allowed (byte ${at})`);
  };
  if (bytes.length === 0) throw new CborError('empty CBOR body');
  item(0);
  if (pos !== bytes.length) throw new CborError(`trailing bytes after the CBOR item (byte ${pos})`);
}

const decoder = new Decoder({
  useRecords: false,
  mapsAsObjects: true,
  copyBuffers: true,
  int64AsNumber: true,
} as ConstructorParameters<typeof Decoder>[0]);

/** PROTOCOL §8.2 `cborPayloadToJson` over cbor-x's value: byte strings as base64 text under `k_b64`. */
function toJsonValue(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
      out[inner instanceof Uint8Array ? `${key}_b64` : key] = toJsonValue(inner);
    }
    return out;
  }
  return value;
}

/**
 * The reference decoding: P82's refusals from the plain scan, the value from cbor-x. (cbor-x strips a
 * leading U+FEFF from texts longer than 64 bytes, which the decoder keeps: tests pin that case apart.)
 */
export function referenceDecodeCbor(bytes: Uint8Array): unknown {
  strictScan(bytes);
  return toJsonValue(decoder.decode(bytes));
}

const encoder = new Encoder({
  useRecords: false,
  mapsAsObjects: true,
  variableMapSize: true,
  tagUint8Array: false,
  useTag259ForMaps: false,
} as ConstructorParameters<typeof Encoder>[0]);

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const BYTE_KEYS = new Set(['public_key_b64', 'sig_b64']);
const textEncoder = new TextEncoder();

function compareKeys(a: string, b: string): number {
  const ea = textEncoder.encode(a);
  const eb = textEncoder.encode(b);
  if (ea.length !== eb.length) return ea.length - eb.length;
  for (let i = 0; i < ea.length; i++) if (ea[i] !== eb[i]) return ea[i]! - eb[i]!;
  return 0;
}

function toCborValue(value: unknown): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new CborError(`CBOR carries integers only (got ${value})`);
    return Math.abs(value) > 0xffffffff ? BigInt(value) : value;
  }
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : toCborValue(v)));
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'object') {
    const source = value as Record<string, unknown>;
    if (typeof (source as { toJSON?: unknown }).toJSON === 'function')
      return toCborValue((source as { toJSON: () => unknown }).toJSON());
    const out: Record<string, unknown> = {};
    const mapped = Object.entries(source)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]): [string, unknown] =>
        BYTE_KEYS.has(k) && typeof v === 'string' && STRICT_BASE64.test(v)
          ? [k.slice(0, -4), Buffer.from(v, 'base64')]
          : [k, toCborValue(v)],
      );
    mapped.sort(([a], [b]) => compareKeys(a, b));
    for (const [k, v] of mapped) out[k] = v;
    return out;
  }
  throw new CborError(`value of type ${typeof value} cannot be encoded`);
}

/** The encoder before P83, unchanged: its bytes are the ones the direct writer keeps. */
export function previousEncodeCbor(value: unknown): Buffer {
  return Buffer.from(encoder.encode(toCborValue(value)));
}
