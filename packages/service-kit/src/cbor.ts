// CBOR wire format: strict decoding to plain JSON values and deterministic encoding, transport only.
// PROTOCOL §8.2 (rules of the upstream codec; signatures are always over the JSON form), SPEC.md Versioning 7.
import { isUtf8 } from 'node:buffer';
import { Decoder, Encoder } from 'cbor-x';

/** Bad CBOR input: the message says what was wrong and where. */
export class CborError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CborError';
  }
}

/** Deepest nesting accepted on the wire (the canonical-JSON depth rule, D2, is the verifier's business). */
const MAX_DEPTH = 128;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Walks the encoded item once and rejects what PROTOCOL §8.2's decoder rejects and cbor-x would let
 * through: tags, floats, `undefined` and other simple values, indefinite lengths, non-text map keys,
 * duplicate keys, invalid UTF-8, integers beyond 2^53 - 1, over-deep nesting and trailing bytes.
 */
export function checkStrictCbor(bytes: Uint8Array): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;

  const need = (n: number) => {
    if (pos + n > bytes.length) throw new CborError(`truncated CBOR at byte ${pos}`);
  };
  const readArgument = (info: number, at: number): number => {
    if (info < 24) return info;
    if (info === 24) {
      need(1);
      return bytes[pos++]!;
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
      const v = view.getBigUint64(pos);
      pos += 8;
      if (v > BigInt(Number.MAX_SAFE_INTEGER))
        throw new CborError(`integer or length above 2^53 at byte ${at}`);
      return Number(v);
    }
    if (info === 31) throw new CborError(`indefinite length at byte ${at}`);
    throw new CborError(`reserved additional information ${info} at byte ${at}`);
  };
  const readText = (length: number, at: number): string => {
    need(length);
    const start = pos;
    pos += length;
    try {
      return utf8.decode(bytes.subarray(start, pos));
    } catch {
      throw new CborError(`invalid UTF-8 text at byte ${at}`);
    }
  };
  // A text value is only validated here (natively, no string built): cbor-x decodes it afterwards.
  const checkText = (length: number, at: number): void => {
    need(length);
    const start = pos;
    pos += length;
    if (!isUtf8(bytes.subarray(start, pos))) throw new CborError(`invalid UTF-8 text at byte ${at}`);
  };

  const item = (depth: number): void => {
    if (depth > MAX_DEPTH) throw new CborError(`nesting deeper than ${MAX_DEPTH}`);
    const at = pos;
    need(1);
    const head = bytes[pos++]!;
    const major = head >> 5;
    const info = head & 0x1f;
    switch (major) {
      case 0:
      case 1:
        readArgument(info, at);
        return;
      case 2: {
        const length = readArgument(info, at);
        need(length);
        pos += length;
        return;
      }
      case 3:
        checkText(readArgument(info, at), at);
        return;
      case 4: {
        const count = readArgument(info, at);
        for (let i = 0; i < count; i++) item(depth + 1);
        return;
      }
      case 5: {
        const count = readArgument(info, at);
        const keys = new Set<string>();
        for (let i = 0; i < count; i++) {
          const keyAt = pos;
          need(1);
          const keyHead = bytes[pos++]!;
          if (keyHead >> 5 !== 3) throw new CborError(`map key is not a text string at byte ${keyAt}`);
          const key = readText(readArgument(keyHead & 0x1f, keyAt), keyAt);
          if (key === '__proto__') throw new CborError(`forbidden map key "__proto__" at byte ${keyAt}`);
          if (keys.has(key)) throw new CborError(`duplicate map key ${JSON.stringify(key)} at byte ${keyAt}`);
          keys.add(key);
          item(depth + 1);
        }
        return;
      }
      case 6:
        throw new CborError(`tags are not allowed (byte ${at})`);
      default:
        // Major type 7: only false, true and null carry meaning in JSON.
        if (info === 20 || info === 21 || info === 22) return;
        if (info >= 25 && info <= 27)
          throw new CborError(`floating-point numbers are not allowed (byte ${at})`);
        if (info === 23) throw new CborError(`undefined is not allowed (byte ${at})`);
        throw new CborError(`simple value ${info} is not allowed (byte ${at})`);
    }
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
const encoder = new Encoder({
  useRecords: false,
  mapsAsObjects: true,
  variableMapSize: true,
  tagUint8Array: false,
  useTag259ForMaps: false,
} as ConstructorParameters<typeof Encoder>[0]);

function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** PROTOCOL §8.2 `cborPayloadToJson`: a byte string under key `k` becomes base64 text under `k_b64`. */
function toJsonValue(value: unknown): unknown {
  if (value instanceof Uint8Array) return toBase64(value);
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
      const name = inner instanceof Uint8Array ? `${key}_b64` : key;
      if (Object.hasOwn(out, name))
        throw new CborError(`key ${JSON.stringify(name)} appears twice after byte-string renaming`);
      out[name] = toJsonValue(inner);
    }
    return out;
  }
  return value;
}

/** Strictly decodes one CBOR item to plain JSON values (byte strings → `_b64` base64 text). */
export function decodeCbor(bytes: Uint8Array): unknown {
  checkStrictCbor(bytes);
  let value: unknown;
  try {
    value = decoder.decode(bytes);
  } catch (error) {
    throw new CborError(`malformed CBOR: ${(error as Error).message}`);
  }
  return toJsonValue(value);
}

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Keys whose base64 text the upstream encoder carries as raw bytes (PROTOCOL §8.2 `jsonToCborPayload`). */
const BYTE_KEYS = new Set(['public_key_b64', 'sig_b64']);

const textEncoder = new TextEncoder();

function compareKeys(a: string, b: string): number {
  // Canonical order of the upstream encoder: shorter encoded key first, then bytewise (RFC 7049 §3.9).
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
    // cbor-x writes integers beyond 32 bits as floats; as BigInt they get the smallest integer head.
    return Math.abs(value) > 0xffffffff ? BigInt(value) : value;
  }
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : toCborValue(v)));
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'object') {
    const source = value as Record<string, unknown>;
    const json = typeof (source as { toJSON?: unknown }).toJSON === 'function';
    if (json) return toCborValue((source as { toJSON: () => unknown }).toJSON());
    const out: Record<string, unknown> = {};
    const entries = Object.entries(source).filter(([, v]) => v !== undefined);
    const mapped = entries.map(([k, v]): [string, unknown] => {
      if (BYTE_KEYS.has(k) && typeof v === 'string' && STRICT_BASE64.test(v)) {
        return [k.slice(0, -4), Buffer.from(v, 'base64')];
      }
      return [k, toCborValue(v)];
    });
    mapped.sort(([a], [b]) => compareKeys(a, b));
    for (const [k, v] of mapped) out[k] = v;
    return out;
  }
  throw new CborError(`value of type ${typeof value} cannot be encoded`);
}

/** Encodes plain JSON values as deterministic CBOR (definite lengths, canonical key order, no floats, no tags). */
export function encodeCbor(value: unknown): Buffer {
  return encoder.encode(toCborValue(value));
}
